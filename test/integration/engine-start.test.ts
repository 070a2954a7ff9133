/**
 * The engine's worker is for traces only: opening an ordinary JSON, JSONC or JSON Lines file (a
 * `package.json`, a `tsconfig.json`, a data file, a log) sends the engine nothing, so it neither
 * starts the worker nor wakes it; the host's sniff (src/trace/trace-sniff.ts) says no on its own.
 * Opening a trace does reach the engine, which recognizes and loads it. Every message to the worker
 * is watched through the extension's test API (`setEngineProbe`); the worker starts only for a
 * message (src/host/engine-client.ts), so a file that sends none cannot start it. (In this
 * workspace the worker runs before the first test: it reads the workspace's mapping files.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import type { ToWorker } from '../../src/engine/worker-protocol';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const PLAIN = path.join(ROOT, 'test', 'fixtures', 'not-traces');

/** True when a message to the worker is about the file at `uri` (its path or its URI appears in it). */
function mentions(message: ToWorker, uri: vscode.Uri): boolean {
  const text = JSON.stringify(message);
  return text.includes(JSON.stringify(uri.fsPath).slice(1, -1)) || text.includes(uri.toString());
}

describe('engine start', function () {
  this.timeout(60_000);
  let api: OtraceApi;
  const sent: ToWorker[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-engine-start-'));

  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    // The workspace's mapping files (test/fixtures/mapping) are read by the engine: let that settle first.
    await api.mappings.ready;
    api.setEngineProbe((m) => sent.push(m));
  });
  after(async () => {
    api.setEngineProbe(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['package.json', 'tsconfig.json', 'settings.json', 'cities.json', 'server.log.jsonl']) {
    it(`opening a plain ${name} sends the engine nothing`, async () => {
      const uri = vscode.Uri.file(path.join(PLAIN, name));
      const before = api.engineThreadId();
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      assert.ok(['json', 'jsonc', 'jsonl'].includes(doc.languageId), `${name} opens as ${doc.languageId}`);
      // The host's decision, as every view of the document asks it (once per version).
      assert.equal(await api.sessions.isTrace(doc), false, `${name} is no trace`);
      assert.equal(await api.sessions.forDocument(doc), undefined);
      const about = sent.filter((m) => mentions(m, uri));
      assert.deepEqual(
        about.map((m) => (m.kind === 'call' ? `${m.method}` : m.kind)),
        [],
        `messages to the engine for ${name}`,
      );
      assert.equal(api.engineThreadId(), before, 'the worker was not started for it');
    });
  }

  it('opening a trace (known by its content) reaches the engine, which loads it', async () => {
    const file = path.join(dir, 'session.jsonl'); // not named *.otrace.jsonl: the content tells
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'claude-code', 'short.jsonl'), file);
    const uri = vscode.Uri.file(file);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    assert.equal(await api.sessions.isTrace(doc), true);
    const summary = await api.sessions.forDocument(doc);
    assert.ok(summary && summary.counts.events > 0, 'the engine loaded the trace');
    assert.ok(api.engineThreadId() !== undefined, 'the worker runs');
    const about = sent.filter((m) => mentions(m, uri));
    assert.ok(about.some((m) => m.kind === 'call' && m.method === 'detect'), 'the engine was asked whether it is a trace');
    assert.ok(about.some((m) => m.kind === 'load'), 'and loaded it');
  });
});
