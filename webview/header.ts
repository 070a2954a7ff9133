/**
 * The page's header and status: the trace's title and summary line, the axis button, the Lock
 * button, the "in progress" button and the loading state. The file name and trace ids are
 * untrusted: textContent only, controls shown (plainLabel).
 */
import { partWords } from '../src/shared/part-words';
import type { GraphOverview } from '../src/shared/protocol';
import { plainLabel } from '../src/shared/untrusted-text';
import { $ } from './dom';
import { agentCountWords, compactionsIn } from '../src/shared/agent-words';

/** Shows the trace's title and its summary line (format, traces, events, agents, reading problems). */
export function showHeader(next: GraphOverview): void {
  const { errors, warnings } = next.problems;
  $('title').textContent = plainLabel(next.title); // the file name: untrusted
  const line =
    `${next.format} · ${next.traces ? `${next.traces.length} traces · ` : ''}${next.reading ? 'first ' : ''}${next.totalEvents.toLocaleString('en-US')} events` +
    // a large file's first part, the rest being read: said next to the count (the line is cut at the header's width)
    (next.reading ? ` (${partWords(next.reading)})` : '') +
    ` · ${laneAgentWords(next)}` +
    // reading problems only: the findings below are listed in Problems too, so say which these are
    (errors + warnings ? ` · ${problemCounts(errors, warnings)} reading the file (see Problems)` : '');
  $('summary').textContent = line;
  // the whole line on hover (one line, cut to the header's width), and a file's traces
  $('summary').title = line + (next.traces ? `\n${next.traces.length} traces in this file, each in its own lane group and analysed on its own: ${next.traces.map((t) => `${plainLabel(t.id)} (${t.events} events, ${t.lanes} lanes)`).join('; ')}` : '');
}

/**
 * The header's agents: `3 agents` (a lane each; `3 agents · 1 context compaction` when a lane is a
 * compaction), or what the engine folded when the trace has more
 * agents than the graph shows as lanes (`999,990 of 1,000,001 agents folded into 22 group lanes by
 * name prefix; …`).
 */
export function laneAgentWords(next: Pick<GraphOverview, 'lanes' | 'folded'>): string {
  if (next.folded) return next.folded.text;
  return agentCountWords(next.lanes.length, compactionsIn(next.lanes.map((l) => l.label)));
}

/** "2 errors, 1 warning": the non-zero counts, each in its number. */
function problemCounts(errors: number, warnings: number): string {
  const part = (n: number, word: string) => (n ? [`${n} ${word}${n === 1 ? '' : 's'}`] : []);
  return [...part(errors, 'error'), ...part(warnings, 'warning')].join(', ');
}

/** The axis button's text and title for `mode` (`steps`: the trace records no clock). */
export function showMode(mode: 'time' | 'order', timeUnit: GraphOverview['timeUnit']): void {
  $('mode').textContent = mode === 'time' ? 'x: time' : 'x: event order';
  const clock = timeUnit === 'steps' ? 'x is the step number (the trace records no clock)' : 'x is time (idle gaps shortened)';
  $('mode').title = mode === 'time' ? `${clock}; click for event order (T)` : 'x is event order; click for time (T)';
}

/** The Lock button of side panels: hidden in the custom editor (`locked` undefined). */
export function showLock(locked: boolean | undefined): void {
  const button = $('lock');
  button.hidden = locked === undefined;
  button.textContent = locked ? 'Locked' : 'Lock';
  button.title = locked ? 'This panel stays on this trace; click to follow the active trace editor again' : 'This panel follows the active trace editor; click to keep it on this trace';
}

/** The "in progress" button: shown while the run is being written; pressed (`following`), the view follows its newest events. */
export function showGrowing(growing: boolean, following: boolean): void {
  const button = $('follow-run');
  button.hidden = !growing;
  button.setAttribute('aria-pressed', String(following));
  button.textContent = following ? '● in progress · following' : '● in progress';
}

/** The sign that the trace file is gone from disk (deleted or moved): the graph shows what was read. */
export function showFileGone(gone: boolean): void {
  $('file-gone').hidden = !gone;
}

let loadingTimer: ReturnType<typeof setInterval> | undefined;

/** The loading state: the title (when given) and the seconds since it began, until a trace is drawn. */
export function showLoadingScreen(title?: string): void {
  document.body.dataset.state = 'loading';
  showFileGone(false); // (another trace)
  if (title) {
    $('title').textContent = `Loading ${plainLabel(title)}…`;
    document.body.dataset.title = '';
  }
  for (const id of ['findings', 'legend', 'lanes', 'axis', 'gaps']) $(id).replaceChildren();
  $('summary').textContent = '';
  const started = Date.now();
  $('elapsed').textContent = '';
  clearInterval(loadingTimer);
  loadingTimer = setInterval(() => {
    if (document.body.dataset.state !== 'loading') return clearInterval(loadingTimer);
    $('elapsed').textContent = `${Math.round((Date.now() - started) / 1000)} s`;
  }, 500);
}
