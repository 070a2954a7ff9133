/**
 * Readable transcript text in a real VS Code (issue #26, item 4): the Claude Code session shows a
 * label at the start of each record ("user: Work on bead…", "Bash: … ✗ exit 2", "compaction"),
 * read from the decorations as applied (the extension's setDecorations probe); the setting
 * `otrace.transcriptLabels` turns them off and on live; the Outline names events the same way. A jump
 * to an event inside a MAST record's 178 KB log string opens the log's text at the event's line,
 * never the collapsed line of the file; a jump to a span of a one-line OTLP export (past column
 * 40,000, where the editor draws nothing) opens the line's JSON formatted with the span's object shaded.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LABEL_TYPE, type AppliedDecorations } from '../../src/host/editor/decorations';
import type { OtraceApi } from '../../src/host/extension';
import { evalInPage, hasBridge, testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIX = path.join(ROOT, 'test', 'fixtures');
const SESSION = path.join(FIX, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const MAST = path.join(FIX, 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
const OTLP = path.join(FIX, 'otel', 'multi-agent.otlp.jsonl');

/** Latest applied decorations: document URI -> decoration type -> what was applied. */
const applied = new Map<string, Map<string, AppliedDecorations>>();
let api: OtraceApi;

/** The record labels applied to a file now: line -> [character, text]. */
function labelsOf(file: string): Map<number, [number, string]> {
  const ranges = applied.get(vscode.Uri.file(file).toString())?.get(LABEL_TYPE)?.ranges ?? [];
  return new Map(ranges.map((r) => [r.line, [r.character, r.text ?? '']]));
}

/** The lines of the analysis marks applied to a file now (every type but the labels and loop highlights). */
function markLines(file: string): number[] {
  const byType = applied.get(vscode.Uri.file(file).toString());
  return [...(byType?.values() ?? [])].filter((a) => a.type !== LABEL_TYPE && a.type !== 'loopRange').flatMap((a) => a.ranges.map((r) => r.line));
}

async function setLabels(value: boolean | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('otrace').update('transcriptLabels', value, vscode.ConfigurationTarget.Global);
}

describe('readable transcript text', function () {
  this.timeout(120_000);
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    api.setDecorationProbe((uri, a) => {
      const byType = applied.get(uri) ?? new Map<string, AppliedDecorations>();
      byType.set(a.type, a);
      applied.set(uri, byType);
    });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  afterEach(async () => {
    await setLabels(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('labels each record of the Claude Code session, turns them off and on live, and the Outline says the same', async () => {
    const started = Date.now();
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(SESSION), { viewColumn: vscode.ViewColumn.One, preview: false });
    // at the top (VS Code reopens a document where an earlier test left it scrolled)
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    editor.revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
    await api.sessions.forDocument(editor.document);
    const prompt = await until('the label of the first prompt', () => labelsOf(SESSION).get(6), 40_000);
    testLog(`      labels on the Claude Code session: ${labelsOf(SESSION).size} near the view, open to labelled ${Date.now() - started} ms`);
    assert.deepEqual(prompt, [0, 'user: Work on bead spotter-a0y. Run bd show spotter-a0y to see…']);
    assert.deepEqual(labelsOf(SESSION).get(9), [0, 'Bash: bd show spotter-a0y']);
    assert.deepEqual(labelsOf(SESSION).get(43), [0, 'sub-agent Explore existing codebase']);
    // only lines near the view are labelled: the session has 1,881 lines
    assert.ok(labelsOf(SESSION).size < 300, `${labelsOf(SESSION).size} labels applied`);
    assert.equal(labelsOf(SESSION).get(1583), undefined, 'the compaction is far below the view');
    // scrolled there, its label comes; a failed command says how it ended
    editor.revealRange(new vscode.Range(1583, 0, 1583, 0), vscode.TextEditorRevealType.InCenter);
    assert.deepEqual(await until('the compaction label', () => labelsOf(SESSION).get(1583), 40_000), [0, 'compaction']);
    editor.revealRange(new vscode.Range(1031, 0, 1031, 0), vscode.TextEditorRevealType.InCenter);
    const failed = await until('the failed test run', () => labelsOf(SESSION).get(1031), 40_000).catch((err: Error) => {
      const lines = [...labelsOf(SESSION).keys()];
      throw new Error(`${err.message}; labelled lines ${Math.min(...lines)}..${Math.max(...lines)}, visible ${editor.visibleRanges.map((r) => `${r.start.line}-${r.end.line}`).join()}`);
    });
    assert.match(failed[1], /^Bash: mix test .* ✗ exit 2$/);

    // the first turn's end: its label, and the analysis's stop mark beside it
    editor.revealRange(new vscode.Range(661, 0, 661, 0), vscode.TextEditorRevealType.InCenter);
    assert.deepEqual(await until('the turn end label', () => labelsOf(SESSION).get(661), 40_000), [0, 'turn ended (handed back)']);
    await until('the turn end mark', () => markLines(SESSION).includes(661));
    // the setting turns the labels off, live; the analysis marks stay
    await setLabels(false);
    await until('no labels', () => labelsOf(SESSION).size === 0, 40_000);
    assert.ok(markLines(SESSION).includes(661), 'the stop mark is still shown');
    await setLabels(true);
    assert.deepEqual(await until('the labels back', () => labelsOf(SESSION).get(661), 40_000), [0, 'turn ended (handed back)']);

    // the Outline names each event by the same words
    const symbols = (await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', editor.document.uri)) ?? [];
    const events = symbols.flatMap((lane) => lane.children);
    const at = (line: number) => events.filter((e) => e.range.start.line === line).map((e) => e.name);
    assert.deepEqual(at(6), [prompt[1]]);
    assert.deepEqual(at(1031), [failed[1]]);
    assert.deepEqual(at(1583), ['compaction']);
  });

  it('a jump to an event inside the MAST log string opens the log at the event’s line, never the collapsed line', async () => {
    const doc = await vscode.workspace.openTextDocument(MAST);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    const summary = await until('the MAST session', () => api.sessions.forDocument(doc), 40_000);
    assert.equal(summary.format, 'mast');
    assert.ok(doc.lineAt(8).text.length > 100_000, 'the log is one line of the file');
    const trace = (await api.sessions.inspect(doc.uri))!;
    const index = trace.events.findIndex((e) => e.id === 'L46');
    const key = api.sessions.peek(doc.uri)!.key;
    // "Show Events" (Go to an event from a prompt, the graph's "show in trace file" go the same way)
    await vscode.commands.executeCommand('otrace.showEvents', { trace: key, indices: [index] });
    const shown = await until('the log string opened', () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.scheme === 'otrace-content' ? e : undefined;
    });
    assert.equal(shown.selection.active.line, 504, 'entry L46 starts on line 505 of the log');
    assert.equal(shown.selection.active.character, 0);
    assert.equal(shown.document.lineAt(504).text, '[2025-31-03 20:42:44 INFO] **[Update Codes]**');
    assert.ok(shown.document.lineCount > 2700, 'the whole log, one entry line per line');
    assert.ok(shown.visibleRanges.some((r) => r.contains(shown.selection.active)), 'the event’s line is in view');
    // the trace file's editor was not moved onto the collapsed line
    const file = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === MAST);
    assert.ok(!file || file.selection.active.line !== 8, 'the cursor of the trace file is not on the log line');
    // the next event chosen (a step in the graph) moves the cursor in the log, not in the file
    const next = trace.events.findIndex((e) => e.id === 'L107');
    api.selection.select(key, next, 'command');
    await until('the cursor on L107', () => shown.selection.active.line === 1241);
    assert.equal(shown.document.lineAt(1241).text, '[2025-31-03 20:43:31 INFO] **[Execute Detail]**');
  });

  it('a Problems entry of an event inside the MAST log string links to the event’s line of the log’s text, not only to the collapsed line', async () => {
    const doc = await vscode.workspace.openTextDocument(MAST);
    await until('the MAST session', () => api.sessions.forDocument(doc), 40_000);
    const loop = await until('the loop finding in the Problems panel', () => vscode.languages.getDiagnostics(doc.uri).find((d) => d.code === 'loop' && d.range.start.line === 8));
    const related = loop.relatedInformation ?? [];
    const first = related[0]?.location;
    assert.equal(first?.uri.scheme, 'otrace-content', `the first related location: ${first?.uri.toString()}`);
    assert.ok(first.range.start.line > 100, `a line of the log's text: ${first.range.start.line}`);
    const text = await vscode.workspace.openTextDocument(first.uri);
    assert.match(text.lineAt(first.range.start.line).text, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO\] /, 'an entry of the log starts there');
    // the finding's other events, inside the same string, point into its text too
    assert.ok(related.length > 1 && related.slice(1).every((r) => r.location.uri.toString() === first.uri.toString()), related.map((r) => r.location.uri.toString()).join('\n'));
  });

  it('a jump to a span of a one-line OTLP export opens the line’s JSON formatted at the span, never column 40,000 of a line the editor does not draw', async () => {
    // the fixture's first batch as one long line: its first span carries 40,000 characters, so the spans after it start past column 40,000
    const [first, second] = fs.readFileSync(OTLP, 'utf8').trim().split('\n');
    const batch = JSON.parse(first) as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
    batch.resourceSpans[0].scopeSpans[0].spans[0].attributes.push({ key: 'test.padding', value: { stringValue: 'padding '.repeat(5000) } });
    const written = `${JSON.stringify(batch)}\n${second}\n`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-one-line-')), 'one-line.otlp.jsonl');
    fs.writeFileSync(file, written);
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    const summary = await until('the OTLP session', () => api.sessions.forDocument(doc), 40_000);
    const key = summary.key;
    const trace = (await api.sessions.inspect(doc.uri))!;
    const index = trace.events.findIndex((e) => e.id === 'e5e5e5e5e5e5e5e5'); // the web_search tool call
    const place = (await api.sessions.engine.eventPlace(key, summary.stamp, index))!;
    assert.equal(place.range.start.line, 0);
    assert.ok(place.range.start.character > 40_000, `the span starts at column ${place.range.start.character + 1}`);
    assert.ok(doc.lineAt(0).text.length > 40_000);

    // "Show Events" (the graph's "show in trace file" goes the same way)
    await vscode.commands.executeCommand('otrace.showEvents', { trace: key, indices: [index] });
    const shown = await until('the line’s JSON formatted', () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.scheme === 'otrace-content' ? e : undefined;
    }).catch((err: Error) => {
      const e = vscode.window.activeTextEditor;
      throw new Error(`${err.message}; the active editor: ${e ? `${path.basename(e.document.uri.path)} at line ${e.selection.active.line + 1}, column ${e.selection.active.character + 1}` : 'none'}`);
    });
    assert.equal(shown.document.languageId, 'json');
    assert.deepEqual(JSON.parse(shown.document.getText()), JSON.parse(doc.lineAt(0).text), 'the whole line, formatted');
    assert.ok(shown.document.lineCount > 100, `${shown.document.lineCount} lines`);
    // the cursor on the span's opening brace, its object shaded
    const cursor = shown.selection.active;
    assert.match(shown.document.lineAt(cursor.line).text, /^ +\{$/);
    assert.equal(cursor.character, shown.document.lineAt(cursor.line).text.indexOf('{'));
    const shaded = api.shadedRecords().get(shown.document.uri.toString());
    assert.ok(shaded?.start.isEqual(cursor), `shaded ${JSON.stringify(shaded)}`);
    const span = JSON.parse(shown.document.getText(shaded)) as { spanId: string; name: string };
    assert.equal(span.spanId, 'e5e5e5e5e5e5e5e5');
    assert.ok(shown.visibleRanges.some((r) => r.contains(cursor)), 'the span is in view');
    // the status bar says where in the file the span is
    if (hasBridge()) {
      const words = `line 1, column ${place.range.start.character + 1} of one-line.otlp.jsonl`;
      await until('the status bar message', () => evalInPage<boolean>(`() => [...document.querySelectorAll('.statusbar-item')].some((n) => n.textContent.includes(${JSON.stringify(words)}))`));
    }
    // the next event chosen (a step in the graph) moves the cursor in the formatted JSON, not in the file
    const next = trace.events.findIndex((e) => e.id === 'f6f6f6f6f6f6f6f6');
    api.selection.select(key, next, 'command');
    const nextLine = await until('the cursor on the next span', () => (shown.selection.active.line > cursor.line ? shown.selection.active.line : undefined));
    assert.match(shown.document.lineAt(nextLine + 2).text, /"spanId": "f6f6f6f6f6f6f6f6"/);
    assert.equal(api.shadedRecords().get(shown.document.uri.toString())?.start.line, nextLine, 'the next span’s object shaded, not the first one’s');

    // the Problems entry of a span on that line (a plain HTTP span, not shown) points into the formatted JSON too
    const problem = await until('the not-shown span in the Problems panel', () => vscode.languages.getDiagnostics(doc.uri).find((d) => /not shown/.test(d.message)));
    const related = problem.relatedInformation?.[0]?.location;
    assert.equal(related?.uri.toString(), shown.document.uri.toString(), `the first related location: ${related?.uri.toString()}`);
    assert.match(shown.document.lineAt(related.range.start.line + 2).text, /"spanId":/);

    // F12 on a span of the Researcher: its hand-off, at its place in the formatted JSON
    const chat = trace.events.findIndex((e) => e.id === 'd4d4d4d4d4d4d4d4');
    const chatPlace = (await api.sessions.engine.eventPlace(key, summary.stamp, chat))!;
    const defs = (await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', doc.uri, toPosition(chatPlace.range.start))) ?? [];
    assert.equal(defs[0]?.uri.scheme, 'otrace-content', `F12 goes to ${defs[0]?.uri.toString()}`);
    assert.equal(defs[0].uri.toString(), shown.document.uri.toString());
    assert.match(shown.document.lineAt(defs[0].range.start.line).text, /^ +\{$/);

    // the file is as written; a file of short lines keeps the jump into the file
    assert.equal(fs.readFileSync(file, 'utf8'), written);
    assert.equal(doc.isDirty, false);
    const short = await vscode.workspace.openTextDocument(OTLP);
    const shortSummary = await until('the short-line OTLP session', () => api.sessions.forDocument(short), 40_000);
    const shortTrace = (await api.sessions.inspect(short.uri))!;
    await vscode.commands.executeCommand('otrace.showEvents', { trace: shortSummary.key, indices: [shortTrace.events.findIndex((e) => e.id === 'e5e5e5e5e5e5e5e5')] });
    const inFile = await until('the short-line file', () => (vscode.window.activeTextEditor?.document.uri.fsPath === OTLP ? vscode.window.activeTextEditor : undefined));
    assert.match(inFile.document.getText(new vscode.Range(inFile.selection.active, inFile.selection.active.translate(0, 80))), /^\{"traceId": "[0-9a-f]+", "spanId": "e5e5e5e5e5e5e5e5"/);
  });
});

function toPosition(p: { line: number; character: number }): vscode.Position {
  return new vscode.Position(p.line, p.character);
}
