/**
 * The engine's own process counts the typed arrays an analysis holds towards V8's heap limit
 * (src/engine/heap-accounting.ts). Checked here on the Node the test editor's extension host runs
 * on, the Node the extension forks its engine with: the unit test may find no Node that has the flag
 * (a machine's Node 20 runs the unit tests before the test editor is installed).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { needsBuffersInHeapLimitFlag } from '../../src/engine/heap-accounting';
import { assertFewerMarkCompacts, markCompactsKeepingBuffers } from '../heap-buffers';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;

describe('the engine process\'s heap', function () {
  this.timeout(120_000);

  it('on the editor\'s Node, a process that sets the flag keeps 1 GB of typed arrays with at most half the mark-compacts', () => {
    // the engine's process is forked with this Node (src/host/engine-channel.ts: process.execPath)
    assert.ok(needsBuffersInHeapLimitFlag(process.versions.v8), `the editor's V8 ${process.versions.v8} takes the flag`);
    const before = markCompactsKeepingBuffers(process.execPath, ROOT, false);
    const own = markCompactsKeepingBuffers(process.execPath, ROOT, true);
    assertFewerMarkCompacts(before, own, (value, message) => assert.ok(value, message));
  });
});
