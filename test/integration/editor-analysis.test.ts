/**
 * The analysis in the trace text, in a real VS Code: decorations as applied (through the
 * extension's setDecorations probe), findings in Problems with related information, hovers and
 * CodeLens that show hostile trace text as text, Go to Definition to the source prompt, the
 * openable-file policy, and the cursor and the graph in step.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AppliedDecorations } from '../../src/host/editor/decorations';
import type { OtraceApi } from '../../src/host/extension';
import { evalInPage, evalInWebview, screenshot, testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIX = path.join(ROOT, 'test', 'fixtures');
const SESSION = path.join(FIX, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');

/** Latest applied decorations: document URI -> decoration type -> what was applied. */
const applied = new Map<string, Map<string, AppliedDecorations>>();
let api: OtraceApi;

async function open(file: string, column = vscode.ViewColumn.One): Promise<vscode.TextEditor> {
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: column, preview: false });
  await api.sessions.forDocument(editor.document);
  return editor;
}

/** All marks applied to a file (not the loop highlights, not the record labels): [line, character, text, type]. */
function marksOf(file: string): [number, number, string, string][] {
  const byType = applied.get(vscode.Uri.file(file).toString());
  if (!byType) return [];
  return [...byType.values()].filter((a) => a.type !== 'loopRange' && a.type !== 'recordLabel').flatMap((a) => a.ranges.map((r) => [r.line, r.character, r.text ?? '', a.type] as [number, number, string, string]));
}

describe('analysis in the trace text', function () {
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
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('marks the stop, the loop and credit of the demo at the start of their lines, and lists findings in Problems', async () => {
    const file = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
    await open(file);
    const stop = await until('the stop mark', () => marksOf(file).find((m) => m[2].startsWith('■ quality met')));
    assert.deepEqual(stop.slice(0, 2), [35, 0], 'e35 is on line 36, the mark at its start');
    assert.equal(stop[3], 'stop');
    const loop = marksOf(file).find((m) => /loop ×3/.test(m[2]));
    assert.ok(loop, `a loop ×3 mark: ${JSON.stringify(marksOf(file))}`);
    assert.ok(marksOf(file).some((m) => /(^| · )credit [+−]\d\.\d\d/.test(m[2])), 'credit on message-like events, named');
    const loopRanges = applied.get(vscode.Uri.file(file).toString())!.get('loopRange')!.ranges;
    assert.ok(loopRanges.length >= 3, 'loop members highlighted');
    const diagnostics = await until('findings in Problems', () => {
      const ds = vscode.languages.getDiagnostics(vscode.Uri.file(file)).filter((d) => d.source === 'otrace' && d.code === 'loop');
      return ds.length ? ds : undefined;
    });
    const related = diagnostics.find((d) => (d.relatedInformation?.length ?? 0) >= 2);
    assert.ok(related, 'a loop finding points at its other events');
    for (const r of related!.relatedInformation!) {
      assert.equal(r.location.uri.fsPath, file);
      // named as the graph names the event, with its agent, not by its id
      assert.match(r.message, /^[a-z_]+\b.* by (orchestrator|researcher|web_searcher) \(loop\)$/, r.message);
      assert.doesNotMatch(r.message, /^e\d+ /, r.message);
    }
  });

  it('marks an event on a line of 60,000 characters and two events sharing one minified line', async () => {
    const long = path.join(FIX, 'editor', 'long-line.otrace.jsonl');
    await open(long);
    const onLong = await until('a mark on the long line', () => marksOf(long).find((m) => m[0] === 1));
    assert.equal(onLong[1], 0);
    assert.match(onLong[2], /50% of the result|0\.50/, 'the credit the trace gives (a share of the result: the trace records no outcome)');
    assert.ok(fs.readFileSync(long, 'utf8').split('\n')[1].length > 60_000);
    const mini = path.join(FIX, 'editor', 'minified.otrace.json');
    await open(mini);
    const line0 = await until('two marks on line 1', () => {
      const ms = marksOf(mini).filter((m) => m[0] === 0);
      return ms.length >= 2 ? ms : undefined;
    });
    assert.equal(new Set(line0.map((m) => m[1])).size, line0.length, 'each mark at its own event');
  });

  it('decorates the full Claude Code session and its sub-agent files, and reports the setDecorations time', async () => {
    const started = Date.now();
    const editor = await open(SESSION);
    const marks = await until('marks in the session', () => (marksOf(SESSION).length ? marksOf(SESSION) : undefined), 40_000);
    const ms = [...applied.get(vscode.Uri.file(SESSION).toString())!.values()].reduce((s, a) => s + a.ms, 0);
    testLog(`      setDecorations on the Claude Code session (${marks.length} marks near the view): ${ms.toFixed(1)} ms; open to marked ${Date.now() - started} ms`);
    // scroll to the last turn end of the main file: its mark is applied when it comes into view
    const summary = api.sessions.peek(editor.document.uri)!;
    const turnEnds = summary.findings.filter((f) => f.kind === 'stop' && f.at && !f.at.file);
    assert.ok(turnEnds.length >= 2, 'the main session has several turn ends');
    const last = turnEnds[turnEnds.length - 1].at!.range.start;
    editor.revealRange(new vscode.Range(last.line, 0, last.line, 0), vscode.TextEditorRevealType.InCenter);
    const mark = await until('the turn end mark after scrolling', () => marksOf(SESSION).find((m) => m[0] === last.line && m[2].startsWith('■')));
    assert.equal(mark[1], last.character);
    const sub = path.join(path.dirname(SESSION), 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', 'agent-a93ccab.jsonl');
    await open(sub, vscode.ViewColumn.Two);
    const subStop = await until('the sub-agent stop mark', () => marksOf(sub).find((m) => m[2].startsWith('■')));
    assert.equal(subStop[3], 'stop');
  });

  it('goes to the source prompt with F12 (editor.action.revealDefinition)', async () => {
    const file = path.join(FIX, 'editor', 'prompted.otrace.jsonl');
    const editor = await open(file);
    editor.selection = new vscode.Selection(4, 10, 4, 10); // e4, source prompts/planner.md:3
    await vscode.commands.executeCommand('editor.action.revealDefinition');
    const prompt = await until('the prompt editor', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith(path.join('prompts', 'planner.md')) ? e : undefined;
    });
    assert.equal(prompt.selection.active.line, 2, 'on line 3 of the prompt');
  });

  it('opens nothing outside the workspace without asking, refuses links, and no notification holds a link', async () => {
    const file = path.join(FIX, 'editor', 'outside.otrace.jsonl');
    const editor = await open(file);
    const asked: string[] = [];
    const before = api.setConfirmOpen(async (shown) => {
      asked.push(shown);
      return false;
    });
    try {
      for (const line of [0, 1]) {
        editor.selection = new vscode.Selection(line, 5, line, 5);
        const defs = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', editor.document.uri, new vscode.Position(line, 5));
        assert.deepEqual(defs ?? [], [], 'F12 offers no path outside the workspace');
        await vscode.commands.executeCommand('editor.action.revealDefinition');
        await vscode.commands.executeCommand('otrace.goToSourcePrompt');
      }
      assert.deepEqual(asked, ['/etc/passwd', '/etc/passwd'], 'the user was asked, with the path shown');
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath === '/etc/passwd'), '/etc/passwd was not opened');
      for (const line of [2, 3]) {
        editor.selection = new vscode.Selection(line, 5, line, 5);
        await vscode.commands.executeCommand('otrace.goToSourcePrompt');
      }
      await vscode.commands.executeCommand('notifications.showList');
      const toasts = await until('the notifications', () =>
        evalInPage<{ text: string; links: number } | undefined>(`() => {
          const t = [...document.querySelectorAll('.notification-list-item')];
          return t.length >= 2 ? { text: t.map((n) => n.textContent).join(' | '), links: t.reduce((k, n) => k + n.querySelectorAll('.notification-list-item-message a').length, 0) } : undefined;
        }`),
      );
      assert.match(toasts.text, /does not exist|opens only files/);
      assert.equal(toasts.links, 0, `a notification renders a link: ${toasts.text}`);
    } finally {
      api.setConfirmOpen(before);
      await vscode.commands.executeCommand('notifications.clearAll');
    }
  });

  it('shows hostile names and content as text in hovers and CodeLens; only otrace commands are enabled', async () => {
    const file = path.join(FIX, 'editor', 'hostile.otrace.jsonl');
    const editor = await open(file);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(3, 5));
    const ours = hovers.flatMap((h) => h.contents).filter((c): c is vscode.MarkdownString => c instanceof vscode.MarkdownString && /Show in Graph/.test(c.value));
    assert.equal(ours.length, 1);
    const md = ours[0];
    const trusted = md.isTrusted as { enabledCommands: string[] };
    assert.ok(trusted.enabledCommands.every((c) => c.startsWith('otrace.')), JSON.stringify(md.isTrusted));
    assert.ok(!md.supportHtml);
    assert.ok(!/\]\(command:workbench/.test(md.value), 'no live link to a workbench command');
    const links = [...md.value.matchAll(/\]\((command:[^)?]+)/g)].map((m) => m[1]);
    assert.ok(links.length > 0 && links.every((l) => l.startsWith('command:otrace.')), links.join());
    const lenses = await until('CodeLens', async () => {
      const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      return ls?.length ? ls : undefined;
    });
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => t.includes('\\$(alert)')), `icon syntax escaped: ${titles.join(' | ')}`);
    assert.ok(titles.every((t) => !/(^|[^\\])\$\(/.test(t)), 'no unescaped $( in a title');
    // rendered: the hover in the workbench holds the text, no image, no link but otrace's
    editor.selection = new vscode.Selection(3, 5, 3, 5);
    await vscode.commands.executeCommand('editor.action.showHover');
    const rendered = await until('the rendered hover', () =>
      evalInPage<{ text: string; imgs: number; hrefs: string[] } | undefined>(`() => {
        const h = [...document.querySelectorAll('.monaco-hover .rendered-markdown')].find((n) => n.textContent.includes('Show in Graph'));
        if (!h) return undefined;
        return { text: h.textContent, imgs: h.querySelectorAll('img').length, hrefs: [...h.querySelectorAll('a')].map((a) => a.getAttribute('data-href') || a.getAttribute('href') || '') };
      }`),
    );
    assert.ok(rendered.text.includes('[x](command:workbench.action.terminal.new)'), rendered.text);
    assert.ok(rendered.text.includes('<img src=x onerror=alert(1)>'));
    assert.ok(rendered.text.includes('$(alert)'));
    assert.equal(rendered.imgs, 0);
    for (const href of rendered.hrefs) assert.ok(href === '' || href.startsWith('command:otrace.'), href);
    await screenshot('test-output/editor-hover.png');
  });

  it('moves the graph with the cursor, and the cursor with the graph', async () => {
    const file = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
    const editor = await open(file);
    const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('otrace.openGraphToSide');
    assert.ok(panel);
    const selector = 'body[data-state="ready"][data-title="demo.otrace.jsonl"]';
    await evalInWebview('() => 1', { selector, timeoutMs: 40_000 });
    editor.selection = new vscode.Selection(6, 3, 6, 3); // e6, a delegation, on line 7
    await until('the graph to follow the cursor', async () =>
      (await evalInWebview<string | undefined>(`() => { const o = globalThis.__otrace; const i = o.current(); const d = o.details(); return i === null || !d || d.index !== i ? undefined : d.eventId; }`, { selector })) === 'e6' ? true : undefined,
    );
    // a click on e30 (a delegation to the critic) moves the cursor to its line, 31
    await evalInWebview(`() => { const o = globalThis.__otrace; o.cy.nodes().filter((x) => x.data('eventId') === 'e30').emit('tap'); }`, { selector });
    await until('the cursor to follow the graph', () => (editor.selection.active.line === 30 ? true : undefined));
    assert.notEqual(vscode.window.activeTextEditor?.document.uri.fsPath, undefined);
  });

  it('otrace: Set the Run\'s Outcome: a benchmark log blames nothing until the user says the run failed, then its decisive error is a diagnostic; "as the trace says" takes it back', async () => {
    // a MAST ChatDev record: no outcome in the file (a Who&When log has one: is_correct, or its final answer against the dataset's)
    const file = path.join(FIX, 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
    const editor = await open(file);
    const blames = () => vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.source === 'otrace' && d.code === 'blame');
    assert.deepEqual(blames(), [], 'no outcome recorded: nothing blamed');
    await vscode.commands.executeCommand('otrace.setOutcome', editor.document.uri, 'failure');
    await until('the decisive error in Problems', () => (blames().length ? true : undefined));
    assert.equal(api.sessions.statedOutcome(editor.document.uri), 'failure');
    await vscode.commands.executeCommand('otrace.setOutcome', editor.document.uri, 'trace');
    await until('no blame once back to the trace\'s own signal', () => (blames().length ? undefined : true));
  });

  it('CodeLens: Explain shows a finding in the graph; a prompt file lists the events that use it', async () => {
    const file = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
    const editor = await open(file);
    const lenses = await until('CodeLens', async () => {
      const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      return ls?.length ? ls : undefined;
    });
    const titles = lenses.map((l) => l.command!.title);
    assert.ok(titles.some((t) => /^agent: researcher · 12 events$/.test(t)), titles.join(' | '));
    const explain = lenses.find((l) => l.command!.title.startsWith('loop ×3'))!;
    assert.ok(explain, 'a loop lens');
    await vscode.commands.executeCommand(explain.command!.command, ...explain.command!.arguments!);
    const shown = await until('the explanation in the details pane', () =>
      evalInWebview<string | undefined>(`() => document.querySelector('#details .finding-explained')?.textContent || undefined`, { selector: 'body[data-state="ready"][data-title="demo.otrace.jsonl"]', timeoutMs: 40_000 }),
    );
    assert.match(shown, /called 3 times|ping-pong|repeated/);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file, 'the trace editor keeps the focus');
    const prompt = await vscode.window.showTextDocument(vscode.Uri.file(path.join(ROOT, 'samples', 'prompts', 'planner.md')), { viewColumn: vscode.ViewColumn.One });
    const promptLenses = await until('the prompt lens', async () => {
      const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', prompt.document.uri);
      return ls?.length ? ls : undefined;
    });
    assert.match(promptLenses[0].command!.title, /^used by \d+ events? in demo\.otrace\.jsonl$/);
  });

  it('CodeLens on the spawn of an agent folded into a group lane frames that agent\'s events in the graph', async () => {
    // 1,200 helpers of one event each: over the 1,000 lanes a graph shows, so the engine folds them into group lanes
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-folded-'));
    const file = path.join(dir, 'folded.otrace.jsonl');
    const lines = [JSON.stringify({ trace_id: 'folded', task_id: 'fan out' })];
    for (let k = 0; k < 1200; k++) {
      const name = `helper_${String(k).padStart(4, '0')}`;
      lines.push(JSON.stringify({ id: `s${k}`, t: 2 * k, type: 'spawn', agent: 'main', to: name, content: `part ${k}` }));
      lines.push(JSON.stringify({ id: `m${k}`, t: 2 * k + 1, type: 'message', agent: name, content: `done ${k}` }));
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    try {
      const editor = await open(file);
      const lens = await until('the lens of helper_0700', async () => {
        const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
        return ls?.find((l) => l.command?.title === 'agent: helper_0700 · 1 event');
      });
      await vscode.commands.executeCommand(lens.command!.command, ...lens.command!.arguments!);
      const frame = 'body[data-state="ready"][data-title="folded.otrace.jsonl"]';
      const lanes = await evalInWebview<string[]>(`() => globalThis.__otrace.graph.lanes.map((l) => l.agent ?? l.name)`, { selector: frame, timeoutMs: 40_000 });
      assert.ok(!lanes.includes('helper_0700'), 'the agent has no lane of its own: it is folded');
      // helper_0700's one event is the message m700, event index 2 * 700 + 1
      // framed, and drawn on its own once its window arrives (until then the run bar holding it is framed)
      const framed = await until('helper_0700\'s event framed on its own', () =>
        evalInWebview<string[] | undefined>(`() => { const f = globalThis.__otrace.cy.nodes('.framed').map((n) => n.id()); return f.includes('n1401') ? f : undefined; }`, { selector: frame, timeoutMs: 40_000 }),
      );
      assert.deepEqual(framed, ['n1401'], 'only its event is framed');
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file, 'the trace editor keeps the focus');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file of 12,000 spawns gets the CodeLens of its visible lines, and those of the lines a scroll shows', async () => {
    // 24,001 lines: over the 10,000 lines above which the lenses follow the visible lines (one CodeLens per spawn of the file was 12,000 objects made on the host thread)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-lenses-'));
    const file = path.join(dir, 'spawns.otrace.jsonl');
    const lines = [JSON.stringify({ trace_id: 'spawns' })];
    for (let k = 0; k < 12_000; k++) {
      lines.push(JSON.stringify({ id: `s${k}`, t: 2 * k, type: 'spawn', agent: 'main', to: `helper_${k}` }));
      lines.push(JSON.stringify({ id: `m${k}`, t: 2 * k + 1, type: 'message', agent: `helper_${k}`, content: `done ${k}` }));
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const spawnLenses = async (editor: vscode.TextEditor) => {
      const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      return (ls ?? []).filter((l) => l.command?.title.startsWith('agent: helper_'));
    };
    try {
      const editor = await open(file);
      const top = await until('the lenses at the top', async () => {
        const ls = await spawnLenses(editor);
        return ls.some((l) => l.command?.title === 'agent: helper_0 · 1 event') ? ls : undefined;
      });
      assert.ok(top.length < 1_000, `lenses of the visible lines and a margin, not all 12,000 (${top.length})`);
      assert.ok(!top.some((l) => l.command?.title === 'agent: helper_9000 · 1 event'), 'none far below the visible lines');
      // spawn 9,000 is on line 18,001 (0-based)
      editor.revealRange(new vscode.Range(18_001, 0, 18_001, 0), vscode.TextEditorRevealType.InCenter);
      const below = await until('the lens of helper_9000 after the scroll', async () => {
        const ls = await spawnLenses(editor);
        return ls.some((l) => l.command?.title === 'agent: helper_9000 · 1 event') ? ls : undefined;
      });
      assert.ok(below.length < 1_000, `still only the visible lines' lenses (${below.length})`);
      const lens = below.find((l) => l.command?.title === 'agent: helper_9000 · 1 event')!;
      assert.equal(lens.range.start.line, 18_001, 'on the spawn of helper_9000');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Toggle Inline Analysis clears the marks and brings them back', async () => {
    const file = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
    await open(file);
    await until('marks', () => (marksOf(file).length ? true : undefined));
    await vscode.commands.executeCommand('otrace.toggleInlineAnalysis');
    await until('no marks', () => (marksOf(file).length === 0 ? true : undefined));
    await vscode.commands.executeCommand('otrace.toggleInlineAnalysis');
    await until('marks again', () => (marksOf(file).length ? true : undefined));
  });

  it('offers to reopen a trace over 50 MB (no text document for extensions) in the graph', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-large-'));
    const file = path.join(dir, 'large.otrace.jsonl');
    const line = (i: number) => JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: `a${i % 4}`, content: 'x'.repeat(500) }) + '\n';
    const fd = fs.openSync(file, 'w');
    for (let i = 0, size = 0; size <= 51 * 1024 * 1024; i++) size += fs.writeSync(fd, line(i));
    fs.closeSync(fd);
    try {
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));
      await vscode.commands.executeCommand('notifications.showList');
      const text = await until('the notice', () =>
        evalInPage<string | undefined>(`() => [...document.querySelectorAll('.notification-list-item')].map((n) => n.textContent).find((t) => t.includes('large.otrace.jsonl')) || undefined`),
      );
      assert.match(text, /too large for the text editor/);
      assert.match(text, /Reopen in Graph/);
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows a status bar summary of the active trace', async () => {
    await open(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
    const text = await until('the status bar item', () =>
      evalInPage<string | undefined>(`() => [...document.querySelectorAll('.statusbar-item')].map((n) => n.textContent).find((t) => t.includes('otrace:') && t.includes(' events'))`),
    );
    assert.match(text, /otrace: 35 events · 6 agents · 1 stop · \d+ loops?/);
    // For the README: the demo's marks, and the hover of a loop member.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const editor = vscode.window.activeTextEditor!;
    editor.revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
    editor.selection = new vscode.Selection(33, 2, 33, 2); // e33, the final aggregate: credit, content, links
    // the workbench has the cursor there (the hover is shown where the cursor is)
    await until('the cursor at e33 in the status bar', () => evalInPage<boolean>(`() => [...document.querySelectorAll('.statusbar-item')].some((n) => n.textContent.includes('Ln 34, Col 3'))`));
    await vscode.commands.executeCommand('editor.action.showHover');
    await until('the hover', () => evalInPage<boolean | undefined>(`() => [...document.querySelectorAll('.monaco-hover .rendered-markdown')].some((n) => n.textContent.includes('Show in Graph')) || undefined`));
    await screenshot('test-output/editor.png');
  });
});
