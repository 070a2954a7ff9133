/**
 * An OpenTelemetry export read with its sibling logs file, in a real VS Code: the spans file is open
 * in a text editor and its GenAI log records are in `logs.jsonl` beside it. An append to the logs
 * file (not open anywhere) reads the trace again, as an append to a sub-agent transcript does.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SPLIT = path.join(ROOT, 'test', 'fixtures', 'otel', 'split');

describe('an OTel export read with its logs file', function () {
  this.timeout(120_000);
  let api: OtraceApi;
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('reads the trace again when the logs file beside it grows', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-otel-logs-'));
    fs.cpSync(SPLIT, dir, { recursive: true });
    const traces = vscode.Uri.file(path.join(dir, 'traces.jsonl'));
    const logs = vscode.Uri.file(path.join(dir, 'logs.jsonl'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(traces));
    // the logs file's own problem (a record naming a span the spans file lacks) is shown on that file
    const lost = (n: string) => () => vscode.languages.getDiagnostics(logs).find((d) => d.message.startsWith(`${n} GenAI log record`));
    await until('the logs file problem of the first read', lost('1'), 60_000);
    const first = api.sessions.peek(traces)!;
    assert.ok(first.files.includes(logs.fsPath), `the session's files name the logs file: ${JSON.stringify(first.files)}`);

    const doc = JSON.parse(fs.readFileSync(logs.fsPath, 'utf8').split('\n')[0]);
    doc.resourceLogs[0].scopeLogs[0].logRecords = [{ ...doc.resourceLogs[0].scopeLogs[0].logRecords[0], spanId: 'ffffffffffffffff' }];
    // A watcher VS Code was just asked for may not be listening yet: an append it missed is followed by
    // another one, and the file's problem must count every record appended (each names a missing span).
    let appended = 0;
    let again: vscode.Diagnostic | undefined;
    while (!again && appended < 6) {
      fs.appendFileSync(logs.fsPath, `${JSON.stringify(doc)}\n`);
      appended++;
      again = await until(`the problem of the logs file after ${appended} append(s)`, lost(String(1 + appended)), 10_000).catch(() => undefined);
    }
    assert.ok(again, `no re-read after ${appended} appends to the logs file`);
    testLog(`otel logs: after ${appended} append(s), "${again.message.slice(0, 80)}…"`);
    assert.notEqual(api.sessions.peek(traces)!.stamp, first.stamp, 'a new read of the session');
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === logs.toString()), 'the logs file was never opened');
  });
});
