/**
 * People's labels in a real VS Code (issue 29 item 1): a label given from an event's hover (its
 * "Label…" link opens the pick) lands in `<trace>.labels.jsonl` next to the trace, whose bytes do not
 * change; it is shown on the event's line, and again after the trace is opened anew and read by a
 * fresh reader (as after a window reload), and after 100 lines are appended to the trace; the graph
 * outlines the labelled event (its node, or the run bar holding it) and labels from its details pane.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HumanLabels } from '../../src/host/editor/human-labels';
import type { OtraceApi } from '../../src/host/extension';
import { clickInWebview, evalInWebview, testLog } from './bridge';
import { until, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const DEMO = path.join(ROOT, 'test', 'fixtures', 'labels', 'demo.otrace.jsonl');

describe("people's labels in a sidecar", function () {
  this.timeout(120_000);
  let api: OtraceApi;
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a label from the hover lands in the sidecar, the trace unchanged; it shows after a reload, after 100 appended lines and in the graph, which labels too', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-labels-'));
    const file = path.join(dir, 'demo.otrace.jsonl');
    fs.copyFileSync(DEMO, file);
    const sidecar = `${file}.labels.jsonl`;
    const bytes = fs.readFileSync(file);
    const uri = vscode.Uri.file(file);
    let editor = await vscode.window.showTextDocument(uri, { preview: false });
    await until('the session', () => api.sessions.peek(uri));

    // the hover of e25 (line 26: the first line holds the trace's fields) offers "Label…": a link to otrace's own command with the session key and the event's index only
    const line = 25;
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 3));
    const md = hovers.flatMap((h) => h.contents).find((c): c is vscode.MarkdownString => c instanceof vscode.MarkdownString && /Label…/.test(c.value))!;
    assert.ok(md, 'the hover has a Label… link');
    assert.ok((md.isTrusted as { enabledCommands: string[] }).enabledCommands.includes('otrace.labelEvent'));
    const link = /\[Label…\]\(command:otrace\.labelEvent\?([^)]+)\)/.exec(md.value)!;
    const args = JSON.parse(decodeURIComponent(link[1])) as Record<string, unknown>;
    assert.deepEqual(Object.keys(args).sort(), ['index', 'trace']);
    assert.equal(args.trace, uri.toString());
    assert.equal(typeof args.index, 'number');

    // the link's command opens the pick; its first item, "Should Have Stopped Here", is taken
    let done = false;
    const ran = Promise.resolve(vscode.commands.executeCommand<boolean>('otrace.labelEvent', args)).then((v) => {
      done = true;
      return v;
    });
    await until('the pick to be taken', async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return done;
    }, 20_000, 300);
    assert.equal(await ran, true, 'the label was written');

    const lines = fs.readFileSync(sidecar, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1);
    const record = JSON.parse(lines[0]);
    assert.equal(record.event, 'e25');
    assert.equal(record.label, 'should_have_stopped');
    assert.equal(record.position.line, line + 1);
    assert.match(record.fingerprint, /^[0-9a-f]{8}-[0-9a-f]{8}$/);
    assert.ok(record.author.length > 0 && !Number.isNaN(Date.parse(record.time)));
    assert.ok(fs.readFileSync(file).equals(bytes), "the trace's bytes are unchanged");

    const shownAt = (want: number) =>
      untilValue(`the label's mark on line ${want + 1}`, () => api.labels.shown.get(uri.toString()) ?? [], (s) => s.some((m) => m.line === want && /Should Have Stopped Here/.test(m.text)));
    await shownAt(line);
    const hover = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 3));
    assert.ok(hover.flatMap((h) => h.contents).some((c) => c instanceof vscode.MarkdownString && /👤 Should Have Stopped Here/.test(c.value)), 'the hover shows the label');

    // a reload: the trace closed and opened again, its sidecar read by a fresh reader
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    editor = await vscode.window.showTextDocument(uri, { preview: false });
    const summary = await until('the session again', () => api.sessions.peek(uri));
    const fresh = new HumanLabels(api.sessions);
    try {
      const read = await fresh.labelsOf(summary);
      assert.deepEqual(read?.labels.map((l) => [l.index, l.at.line, l.label, l.by]), [[24, line, 'should_have_stopped', 'id']]);
      assert.deepEqual(read?.problems, []);
    } finally {
      fresh.dispose();
    }
    await shownAt(line);

    // the run goes on: 100 lines appended to the trace on disk
    const before = summary.counts.events;
    fs.appendFileSync(file, Array.from({ length: 100 }, (_, k) => JSON.stringify({ id: `late${k}`, t: 60 + k, type: 'message', agent: 'critic', content: `late note ${k}` })).join('\n') + '\n');
    await until('the 100 appended events', () => (api.sessions.peek(uri)?.counts.events ?? 0) >= before + 100 || undefined, 60_000);
    // (the editor reloads the file from its own watcher: it may show the lines after the engine read them)
    await until('the editor showing the appended lines', () => editor.document.lineCount >= 135 || undefined, 60_000);
    await shownAt(line);
    const after = await api.labels.labelsOf(api.sessions.peek(uri)!);
    assert.deepEqual(after?.labels.map((l) => [l.index, l.by]), [[24, 'id']]);
    assert.equal(fs.readFileSync(sidecar, 'utf8').split('\n').filter(Boolean).length, 1, 'the sidecar is only written by a label');
    testLog(`labels: e25 labelled from the hover, shown after a reload and after 100 appended lines (${api.sessions.peek(uri)!.counts.events} events)`);

    // the graph marks the labelled event apart from otrace's verdicts, and labels from its details pane
    const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    // the events whose node, or the run bar holding them, the graph outlines as labelled
    const marked = () =>
      evalInWebview<number[]>(
        `(() => { const v = globalThis.__otrace.view; const ids = globalThis.__otrace.cy.nodes('.human-label').map((n) => n.id()); return [3, 24].filter((i) => ids.includes(v.keyOf(i))); })()`,
        { selector: frame, timeoutMs: 60_000 },
      );
    await untilValue('the graph to mark e25', marked, (m) => m.includes(24), 60_000).catch(async (err: Error) => {
      const seen = await evalInWebview<unknown>(`({ words: globalThis.__otrace.view.peoplesLabelOf(24) ?? null, events: globalThis.__otrace.cy.nodes('.event').map((n) => n.data('index')), runs: globalThis.__otrace.cy.nodes('.run').length })`, { selector: frame });
      throw new Error(`${err.message}; the graph: ${JSON.stringify(seen).slice(0, 600)}`);
    });
    await vscode.commands.executeCommand('otrace.showInGraph', { trace: uri.toString(), index: 3 });
    const button = '#details .actions vscode-button:last-child';
    await untilValue('the details of e4 with Label…', () => evalInWebview<string>(`document.querySelector('${button}')?.textContent ?? ''`, { selector: frame }), (t) => t === 'Label…');
    await clickInWebview(button, { frame });
    await until('the pick from the graph to be taken', async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return fs.readFileSync(sidecar, 'utf8').split('\n').filter(Boolean).length === 2 || undefined;
    }, 20_000, 300);
    assert.equal(JSON.parse(fs.readFileSync(sidecar, 'utf8').split('\n')[1]).event, 'e4');
    await untilValue('the graph to mark e4 too', marked, (m) => m.includes(3) && m.includes(24), 30_000);
    assert.ok(fs.readFileSync(file).subarray(0, bytes.length).equals(bytes), 'the trace is only what was appended to it');
  });
});
