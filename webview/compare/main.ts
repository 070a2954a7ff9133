/**
 * The compare panel's page (issue 28): a header with each run's file, stop and outcome, per agent
 * pair the figures A → B, a legend, the lanes of A above the lanes of B (one column per step: the
 * same step joined, changed joined by a dotted line, an event of one run alone), the first
 * divergence marked, and the selected events of both runs. The host owns the selection: a click,
 * N / Shift+N / F7 / Shift+F7 or the buttons ask it, and it answers with `select`. Trace text is only
 * ever set as text (textContent), never as HTML.
 */
import type { CompareColumn, CompareHostMessage, CompareLanes, CompareModel, CompareWebviewMessage, EventDetails, LaneFigureDeltas, LaneFigures } from '../../src/shared/compare-protocol';
import './compare.css';
import { DIFFERENT_TASKS, differentTasks } from '../../src/shared/task-words';
import { formatTimeSpent } from '../../src/shared/duration-words';

declare function acquireVsCodeApi(): { postMessage(message: CompareWebviewMessage): void };
const vscode = acquireVsCodeApi();
const post = (m: CompareWebviewMessage) => vscode.postMessage(m);

/** Column width in px (a box is 104 px wide). */
const COLUMN_PX = 112;
/** Room left of the first column for the A / B row names. */
const LEFT_PX = 34;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Makes an element with a class and text (text only: trace content never becomes markup). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = '', text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const KIND_WORDS: Record<string, string> = { same: 'the same step', only_in_a: 'only in A', only_in_b: 'only in B', changed: 'changed', moved: 'moved' };

let model: CompareModel | undefined;
/** The selection the host last sent. */
let selected: { diff: number; lanes: number; column: number } = { diff: -1, lanes: -1, column: -1 };
/** Boxes by `lanes:column`. */
const boxes = new Map<string, HTMLElement[]>();

/** What the integration tests read. */
(globalThis as { __otraceCompare?: unknown }).__otraceCompare = {
  selected: () => ({ ...selected, text: [...document.querySelectorAll('.ev.selected')].map((e) => e.textContent) }),
  differences: () => model?.differences.length ?? 0,
};

window.addEventListener('message', (event: MessageEvent<CompareHostMessage>) => {
  const m = event.data;
  if (m.type === 'model') show(m.model, m.files);
  else if (m.type === 'error') showError(m.message);
  else if (m.type === 'select') select(m);
});

function showError(message: string): void {
  document.body.dataset.state = 'error';
  const lanes = $('lanes');
  lanes.replaceChildren(el('div', '', message));
  lanes.firstElementChild!.id = 'error';
}

function show(m: CompareModel, files: { a: string; b: string }): void {
  model = m;
  showSides(m, files);
  showLegend();
  showAgents(m);
  showLanes(m);
  $('position').textContent = m.differences.length === 0 ? 'the runs do the same steps' : `${m.differences.length.toLocaleString('en-US')}${m.differencesLeftOut ? '+' : ''} differences`;
  document.body.dataset.state = 'ready';
  document.body.dataset.differences = String(m.differences.length);
}

function showSides(m: CompareModel, files: { a: string; b: string }): void {
  const rows: [string, string, string?][] = [];
  for (const [name, side, file] of [['A', m.a, files.a], ['B', m.b, files.b]] as const) {
    rows.push([name, `${file}  (${side.format}, ${side.events.toLocaleString('en-US')} events)`, 'file']);
  }
  if (m.a.task && m.a.task === m.b.task) rows.push(['task', m.a.task]);
  else rows.push(['task A', m.a.task || 'not found'], ['task B', m.b.task || 'not found']);
  if (differentTasks(m.a.task, m.b.task)) rows.push(['note', DIFFERENT_TASKS, 'warn']);
  rows.push(['ended A', m.a.ended], ['ended B', m.b.ended], ['outcome', `A: ${m.a.outcome} · B: ${m.b.outcome}`]);
  const c = m.counts;
  rows.push(['steps', `${c.same.toLocaleString('en-US')} the same, ${c.only_in_a.toLocaleString('en-US')} only in A, ${c.only_in_b.toLocaleString('en-US')} only in B, ${c.changed.toLocaleString('en-US')} changed, ${c.moved.toLocaleString('en-US')} moved`]);
  const box = $('sides');
  box.replaceChildren();
  for (const [key, value, cls] of rows) {
    box.append(el('span', 'key', key));
    const v = el('span', `value${cls ? ` ${cls}` : ''}`, value);
    v.title = value;
    box.append(v);
  }
}

function showLegend(): void {
  const legend = $('legend');
  legend.replaceChildren();
  for (const kind of ['same', 'only_in_a', 'only_in_b', 'changed', 'moved']) {
    const item = el('span', `legend-${kind}`);
    const swatch = el('span', `swatch ev-swatch ${kind}`);
    swatch.style.borderColor = `var(--${kind === 'same' ? 'same' : kind === 'only_in_a' ? 'only-a' : kind === 'only_in_b' ? 'only-b' : kind})`;
    item.append(swatch, KIND_WORDS[kind]);
    legend.append(item);
  }
}

/** `12 → 15 (+3)`; a class says which way it went. */
/** `a → b (±change)` in `td`, each figure said by `say` (a count by default); classed `more` / `less`. */
function change(td: HTMLElement, a: number | null | undefined, b: number | null | undefined, say: (n: number) => string = fmt): void {
  if (a === null || a === undefined || b === null || b === undefined) {
    td.textContent = a !== null && a !== undefined ? `${say(a)} → –` : b !== null && b !== undefined ? `– → ${say(b)}` : '–';
    return;
  }
  const d = Math.round((b - a) * 1000) / 1000;
  td.textContent = d === 0 ? say(a) : `${say(a)} → ${say(b)} (${d > 0 ? '+' : '−'}${say(Math.abs(d))})`;
  if (d !== 0) td.className = d > 0 ? 'more' : 'less';
}

function fmt(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

function tokenSum(s: LaneFigures | null): number | null {
  if (!s) return null;
  const kinds = Object.values(s.tokens).filter((v): v is number => v !== null);
  return kinds.length ? kinds.reduce((x, y) => x + y, 0) : null;
}

function tokenTitle(d: LaneFigureDeltas): string {
  return Object.entries(d.tokens)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k.replace('_', ' ')} ${v! > 0 ? '+' : v! < 0 ? '−' : '±'}${fmt(Math.abs(v!))}`)
    .join(' · ');
}

function pairName(p: CompareLanes): string {
  if (p.a !== null && p.b !== null) return p.a === p.b ? p.a : `${p.a} ↔ ${p.b}${p.pairedBy ? ` (paired by ${p.pairedBy})` : ''}`;
  return p.a !== null ? `${p.a} (only in A)` : `${p.b} (only in B)`;
}

function showAgents(m: CompareModel): void {
  const table = el('table');
  const head = el('tr');
  for (const h of ['agent (A → B)', 'events', 'tool calls', 'failed calls', 'tokens', 'time', 'steps']) head.append(el('th', '', h));
  table.append(head);
  const time = m.a.timeUnit === 'steps' && m.b.timeUnit === 'steps' ? (n: number) => `${fmt(n)} steps` : m.a.timeUnit === m.b.timeUnit ? formatTimeSpent : undefined; // as the graph says times: `3,904.085 s` read as raw data
  for (const p of m.lanes) {
    const tr = el('tr');
    tr.append(el('td', '', pairName(p)));
    const cells = Array.from({ length: 5 }, () => el('td'));
    change(cells[0], p.aStats?.events, p.bStats?.events);
    change(cells[1], p.aStats?.tool_calls, p.bStats?.tool_calls);
    change(cells[2], p.aStats?.failed_calls, p.bStats?.failed_calls);
    change(cells[3], tokenSum(p.aStats), tokenSum(p.bStats));
    cells[3].title = tokenTitle(p.deltas);
    if (time || p.deltas.time !== null) change(cells[4], p.aStats?.time, p.bStats?.time, time);
    else cells[4].textContent = `${p.aStats ? fmt(p.aStats.time) : '–'} → ${p.bStats ? fmt(p.bStats.time) : '–'} (other units)`;
    tr.append(...cells);
    const c = p.counts;
    tr.append(el('td', '', [`${fmt(c.same)} the same`, c.only_in_a ? `${fmt(c.only_in_a)} only in A` : '', c.only_in_b ? `${fmt(c.only_in_b)} only in B` : '', c.changed ? `${fmt(c.changed)} changed` : '', c.moved ? `${fmt(c.moved)} moved` : ''].filter(Boolean).join(', ')));
    table.append(tr);
  }
  const box = $('agents');
  box.replaceChildren(table);
  for (const [which, list] of [['A', m.findings.a], ['B', m.findings.b]] as const) {
    if (list.length) box.append(el('div', 'findings', `findings only in ${which}: ${list.join(' · ')}`));
  }
}

function showLanes(m: CompareModel): void {
  const root = $('lanes');
  root.replaceChildren();
  boxes.clear();
  const first = m.differences[0];
  m.lanes.forEach((p, k) => {
    const pair = el('div', 'pair');
    const name = el('div', 'pair-name', pairName(p));
    if (p.columnsLeftOut) {
      const after = p.columnsLeftOut - p.columnsBefore;
      name.append(el('span', 'note', [p.columnsBefore ? `${fmt(p.columnsBefore)} steps before` : '', after ? `${fmt(after)} steps after` : ''].filter(Boolean).join(' and ') + ' not drawn'));
    }
    const track = el('div', 'track');
    track.style.width = `${LEFT_PX + p.columns.length * COLUMN_PX + 8}px`;
    const side = el('div', 'side');
    side.append(el('span', 'a', 'A'), el('span', 'b', 'B'));
    track.append(side);
    p.columns.forEach((col, x) => drawColumn(track, col, k, x));
    if (first && first.lanes === k && first.column >= 0) {
      const marker = el('div', 'marker');
      marker.style.left = `${LEFT_PX + first.column * COLUMN_PX - 4}px`;
      marker.append(el('span', '', 'first divergence'));
      track.append(marker);
    }
    pair.append(name, track);
    root.append(pair);
  });
  if (m.differencesLeftOut) root.append(el('div', 'left-out', `${fmt(m.differencesLeftOut)} more differences not listed`));
}

function drawColumn(track: HTMLElement, col: CompareColumn, lanes: number, x: number): void {
  const list: HTMLElement[] = [];
  const box = (side: 'a' | 'b', label: string | undefined) => {
    const b = el('div', `ev ${side} ${col.kind}`, label ?? '');
    b.style.left = `${LEFT_PX + x * COLUMN_PX}px`;
    b.title = `${side.toUpperCase()}: ${label ?? ''} (${KIND_WORDS[col.kind]})`;
    b.dataset.lanes = String(lanes);
    b.dataset.column = String(x);
    b.dataset.kind = col.kind;
    b.addEventListener('click', () => {
      post({ type: 'pick', lanes, column: x });
      $('lanes').focus({ preventScroll: true });
    });
    track.append(b);
    list.push(b);
  };
  if (col.a !== undefined) box('a', col.la);
  if (col.b !== undefined) box('b', col.lb);
  if (col.a !== undefined && col.b !== undefined) {
    const join = el('div', `join ${col.kind}`);
    join.style.left = `${LEFT_PX + x * COLUMN_PX + 50}px`;
    track.append(join);
  }
  boxes.set(`${lanes}:${x}`, list);
}

function select(m: Extract<CompareHostMessage, { type: 'select' }>): void {
  for (const b of document.querySelectorAll('.ev.selected')) b.classList.remove('selected');
  selected = { diff: m.diff, lanes: m.lanes, column: m.column };
  const list = boxes.get(`${m.lanes}:${m.column}`) ?? [];
  for (const b of list) b.classList.add('selected');
  if (list[0]) scrollTo(list[0]);
  const n = model?.differences.length ?? 0;
  const d = m.diff >= 0 ? model?.differences[m.diff] : undefined;
  $('position').textContent = d ? `difference ${fmt(m.diff + 1)} of ${fmt(n)}${model?.differencesLeftOut ? '+' : ''}: ${KIND_WORDS[d.kind]}${m.diff === 0 ? ' (the first divergence)' : ''}` : `the same step · ${fmt(n)} differences`;
  document.body.dataset.diff = String(m.diff);
  showDetails(m.details, d?.kind);
}

/** Scrolls the lanes so the box is in the middle across and in view down. */
function scrollTo(box: HTMLElement): void {
  const lanes = $('lanes');
  const area = lanes.getBoundingClientRect();
  const r = box.getBoundingClientRect();
  lanes.scrollLeft += r.left + r.width / 2 - (area.left + area.width / 2);
  const pair = box.closest('.pair') as HTMLElement | null;
  if (pair) {
    const p = pair.getBoundingClientRect();
    if (p.top < area.top || p.bottom > area.bottom) lanes.scrollTop += p.top - area.top - 8;
  }
}

function showDetails(details: { a?: EventDetails; b?: EventDetails }, kind: string | undefined): void {
  const box = $('details');
  box.replaceChildren();
  for (const [name, e] of [['A', details.a], ['B', details.b]] as const) {
    const run = el('div', 'run');
    const h = el('h3', '', `${name}: `);
    h.append(el('span', 'kind', kind ? KIND_WORDS[kind] : 'the same step'));
    run.append(h);
    if (!e) run.append(el('div', 'none', `nothing: run ${name} has no such step here`));
    else {
      run.append(el('div', '', `${e.type} · ${e.agent} · ${e.t}`), el('div', '', `${e.where} · id ${e.id}`));
      if (e.content) run.append(el('pre', '', e.content));
    }
    box.append(run);
  }
}

/** The column beside the selected one in its lane pair (−1 / +1), or the same column of the pair above or below. */
function move(dx: number, dy: number): void {
  if (!model) return;
  let { lanes, column } = selected;
  if (lanes < 0) lanes = 0;
  if (dy) lanes = Math.min(model.lanes.length - 1, Math.max(0, lanes + dy));
  const cols = model.lanes[lanes]?.columns.length ?? 0;
  if (cols === 0) return;
  column = Math.min(cols - 1, Math.max(0, (dy ? Math.min(column, cols - 1) : column) + dx));
  post({ type: 'pick', lanes, column });
}

$('next-diff').addEventListener('click', () => post({ type: 'step', direction: 1 }));
$('prev-diff').addEventListener('click', () => post({ type: 'step', direction: -1 }));
document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const key = e.key;
  if (key === 'n' || key === 'N' || key === 'F7') post({ type: 'step', direction: e.shiftKey ? -1 : 1 });
  else if (key === 'ArrowRight') move(1, 0);
  else if (key === 'ArrowLeft') move(-1, 0);
  else if (key === 'ArrowDown') move(0, 1);
  else if (key === 'ArrowUp') move(0, -1);
  else return;
  e.preventDefault();
});

post({ type: 'ready' });
