/**
 * Untrusted names in the graph (issue 23): a trace whose file name and agent and tool names hold a
 * right-to-left override (U+202E/U+202C), NUL, ESC, BEL and NEL (U+0085) shows them visibly
 * (`⟨U+202E⟩`) in the graph labels, the lane names and their tooltips, the node tooltip, the details
 * pane, the header and the panel's tab title, and in the exported SVG, which parses as XML. The
 * raw content view keeps the content as it is (as text). Read in the real webview (Chromium).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { evalInWebview } from './bridge';
import { untilInWebview } from './wait';

/** Characters that must never be shown raw: C0 but tab/newline/CR, DEL, C1, bidi marks, embeddings, overrides, isolates, line/paragraph separators. */
const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\u202Egnp.exe\u202C\u0000\u001b[31m\u0007\u0085';
const SHOWN = '⟨U+202E⟩gnp.exe⟨U+202C⟩⟨U+0000⟩⟨U+001B⟩[31m⟨U+0007⟩⟨U+0085⟩';
const LEAD = `lead${HOSTILE}`;
const WORKER = `worker${HOSTILE}`;
const TOOL = `bash${HOSTILE}`;
const CONTENT = `raw content ${HOSTILE} end`;

/** A file name with the override, ESC and BEL (a file name cannot hold NUL). */
const FILE = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-names-')), 'run\u202Elnosj.\u001b[2J\u0007.otrace.jsonl');

/** A CSS string for an attribute selector: every character outside printable ASCII as a CSS escape. */
const cssString = (s: string) => `"${s.replace(/[^\x20-\x7e]|["\\]/g, (c) => `\\${c.codePointAt(0)!.toString(16)} `)}"`;
const FRAME = `body[data-state="ready"][data-title=${cssString(path.basename(FILE))}]`;
/** Text with its raw characters as `\uXXXX`, for failure messages. */
const esc = (s: string) => s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

interface Seen {
  title: string;
  lanes: string[];
  laneTitles: string[];
  labels: Record<string, string>;
  tip: string;
  findings: string[];
  details: { heading: string; fields: [string, string][]; fieldTitles: string[]; content: string };
  svg: { text: string; error: string | null; laneTexts: string[]; eventTitles: string[]; eventLabels: string[] };
}

/** The labels and the tooltip of e1 (hovered), then e1 selected as the host would select it. */
const HOVER_AND_SELECT = `() => {
  const { cy, graph } = globalThis.__otrace;
  const labels = {};
  cy.nodes('.event').forEach((n) => { labels[n.data('eventId')] = n.data('label'); });
  const node = cy.nodes('.event').filter((n) => n.data('eventId') === 'e1');
  node.emit('mouseover');
  const tip = document.getElementById('tooltip').textContent;
  node.emit('mouseout');
  window.postMessage({ type: 'select', stamp: graph.stamp, index: node.data('index') }, '*');
  return { labels, tip };
}`;

/** The rest, once the details pane shows the selected event (undefined until then). */
const READ = `() => {
  const { exportSvg } = globalThis.__otrace;
  const heading = document.querySelector('#details h2');
  if (!heading || !document.querySelector('#details pre')) return undefined;
  const rows = [...document.querySelectorAll('#details table tr')];
  const text = exportSvg();
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  return {
    title: document.getElementById('title').textContent,
    lanes: [...document.querySelectorAll('#lanes .lane-name')].map((l) => l.textContent),
    laneTitles: [...document.querySelectorAll('#lanes .lane')].map((l) => l.title),
    findings: [...document.querySelectorAll('#findings .finding, #findings li')].map((f) => f.textContent),
    details: {
      heading: heading.textContent,
      fields: rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent]),
      fieldTitles: rows.map((r) => r.cells[1].title),
      content: document.querySelector('#details pre').textContent,
    },
    svg: {
      text,
      error: doc.querySelector('parsererror')?.textContent ?? null,
      laneTexts: [...doc.querySelectorAll('text.lane')].map((t) => t.textContent),
      eventTitles: [...doc.querySelectorAll('g.event > title')].map((t) => t.textContent),
      eventLabels: [...doc.querySelectorAll('g.event > text')].map((t) => t.textContent),
    },
  };
}`;

describe('untrusted names in the graph in a real VS Code', function () {
  this.timeout(120_000);
  before(() => {
    const lines = [
      { id: 'e1', t: 0, type: 'spawn', agent: LEAD, to: WORKER, content: CONTENT },
      { id: 'e2', t: 1, type: 'tool_call', agent: WORKER, tool: TOOL, content: 'ls' },
      { id: 'e3', t: 2, type: 'tool_result', agent: WORKER, tool: TOOL, content: 'ok', parent: 'e2' },
      { id: 'e4', t: 3, type: 'return', agent: WORKER, to: LEAD, content: 'done' },
      { id: 'e5', t: 4, type: 'stop', agent: LEAD, reason: 'task_complete' },
    ];
    fs.writeFileSync(FILE, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.dirname(FILE), { recursive: true, force: true });
  });

  it('shows control and bidi characters as ⟨U+…⟩ in labels, lanes, tooltips, details, titles and the SVG; the SVG is XML', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(FILE));
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    const hovered = await evalInWebview<Pick<Seen, 'labels' | 'tip'>>(HOVER_AND_SELECT, { selector: FRAME, timeoutMs: 40_000 });
    const seen: Seen = { ...hovered, ...(await untilInWebview<Omit<Seen, 'labels' | 'tip'>>('the details of e1', READ, FRAME)) };

    const faults: string[] = [];
    const check = (where: string, text: string) => {
      const bad = RAW.exec(text);
      if (bad) faults.push(`${where}: raw U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${esc(text.slice(0, 200))}`);
    };
    check('header title', seen.title);
    seen.lanes.forEach((l, i) => check(`lane name ${i}`, l));
    seen.laneTitles.forEach((l, i) => check(`lane tooltip ${i}`, l));
    for (const [id, label] of Object.entries(seen.labels)) check(`graph label of ${id}`, label);
    check('node tooltip', seen.tip);
    seen.findings.forEach((f, i) => check(`finding ${i}`, f));
    check('details heading', seen.details.heading);
    for (const [k, v] of seen.details.fields) check(`details field ${k}`, v);
    seen.details.fieldTitles.forEach((t, i) => check(`details field tooltip ${i}`, t));
    check('SVG', seen.svg.text.replace(/\n/g, ''));
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith('Graph: '));
    assert.equal(tabs.length, 1, 'one graph tab');
    check('tab title', tabs[0].label);
    assert.deepEqual(faults, [], 'nothing shown raw');

    assert.deepEqual(seen.lanes, [`lead${SHOWN}`, `worker${SHOWN}`], 'the lane names, escaped');
    assert.match(seen.laneTitles[1], new RegExp(`spawned by lead${SHOWN.replace(/[[\]()+.]/g, '\\$&')}`));
    assert.equal(seen.labels.e1, `spawn worker${SHOWN}`, 'the spawn names its target, escaped');
    assert.equal(seen.labels.e2, `bash${SHOWN}: ls`, 'the tool bar is its tool (escaped) and its argument');
    assert.ok(seen.tip.includes(`lead${SHOWN}`), `the tooltip names the agent, escaped: ${esc(seen.tip)}`);
    assert.equal(seen.details.heading, `spawn worker${SHOWN}`);
    assert.deepEqual(seen.details.fields.find(([k]) => k === 'agent'), ['agent', `lead${SHOWN}`]);
    assert.deepEqual(seen.details.fields.find(([k]) => k === 'to'), ['to', `worker${SHOWN}`]);
    assert.equal(seen.details.content, CONTENT, 'the raw content view keeps the content as it is');
    assert.ok(seen.title.includes('run⟨U+202E⟩lnosj.⟨U+001B⟩[2J⟨U+0007⟩.otrace.jsonl'), `the header: ${esc(seen.title)}`);
    assert.equal(tabs[0].label, 'Graph: run⟨U+202E⟩lnosj.⟨U+001B⟩[2J⟨U+0007⟩.otrace.jsonl', 'the tab title');

    assert.equal(seen.svg.error, null, 'the exported SVG parses as XML');
    assert.deepEqual(seen.svg.laneTexts, seen.lanes, 'the SVG has the lane names as shown');
    assert.ok(seen.svg.eventTitles.includes(`e1 · lead${SHOWN}`), `SVG titles: ${esc(seen.svg.eventTitles.join(' | '))}`);
    for (const label of seen.svg.eventLabels) assert.ok(Object.values(seen.labels).some((l) => label.startsWith(l)), `SVG label ${esc(label)} is one shown`);
  });
});
