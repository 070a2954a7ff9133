/** The status bar's words for a trace session (pure: no `vscode`, so unit tests read them). */
import type { SessionSummary } from '../../engine/summary';
import { labelText, type LabelText } from '../../shared/untrusted-text';
import { partWords } from '../../shared/part-words';
import { agentCountWords } from '../../shared/agent-words';
import { countWords } from '../../shared/count-words';

/**
 * `otrace: 35 events · 6 agents · 1 stop · 2 loops` (counts only: no trace text; `3 agents · 1 context
 * compaction` when a lane compacts another's context); while the
 * analysis runs, `otrace: 1,000,000 events · 22 agents · 1,000 stops · analysing…` (loops are not
 * found yet), or `… · 2 loops · analysing…` while lines appended to it are analysed (the last analysis's loops);
 * while a large file is read in parts, `otrace: first 18,842 events · 6 agents · 12 stops · 1% of 218 MB shown, reading the rest…`
 * (`… shown, read stopped` once its read was cancelled or failed); `… · not analysed` when the analysis
 * failed or was cancelled (the summary's `analysisError`).
 */
export function summaryText(summary: SessionSummary): LabelText {
  const { events, stops, loops } = summary.counts;
  // a compaction's lane is counted apart, as the graph's header counts it
  const agents = agentCountWords(summary.counts.agents, summary.counts.compactions ?? 0);
  if (summary.reading) return labelText`otrace: first ${countWords(events, 'event')} · ${agents} · ${countWords(stops, 'stop')} · ${partWords(summary.reading)}`;
  // an analysis that failed or was cancelled found no loop: it says so, not "0 loops"
  const last = summary.analysisError !== undefined ? 'not analysed' : !summary.analysisPending ? countWords(loops, 'loop') : summary.analysedEvents !== undefined ? `${countWords(loops, 'loop')} · analysing…` : 'analysing…';
  return labelText`otrace: ${countWords(events, 'event')} · ${agents} · ${countWords(stops, 'stop')} · ${last}`;
}
