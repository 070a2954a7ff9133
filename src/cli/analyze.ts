/**
 * `otrace analyze FILE [--json] [--outcome failure|success]`: the analysis as JSON or a readable
 * summary (docs/analysis.md). `otrace analyze DIR|FILE...`: one row per trace and totals (analyze-corpus.ts),
 * the traces read on `--jobs` worker threads, one shard of them with `--shard i/n` (corpus-run.ts).
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeTrace, type Analysis } from '../analysis';
import { whyNoBlame } from '../analysis/blame';
import { analyzeCorpus } from './analyze-corpus';
import { runOptionsOf, RUN_ARGS, RUN_USAGE } from './corpus-run';
import { formatSpan } from '../trace/units';
import { creditWorthShowing, formatCredit, shareWords } from '../shared/credit-words';
import { withoutStopLead } from '../shared/stop-words';
import { clipList, type Command, fail, loadAnalysed, MAX_MESSAGE, safe, safeJson, recordPlace, safePath, writeLines } from './common';

const FINDING_LABEL: Record<string, string> = { stop: 'stop', loop: 'loop', blame: 'blame', best_stop: 'best stop', verification: 'verify' };

export const analyze: Command = {
  usage: `otrace analyze FILE|DIR... [--json] [--outcome failure|success] ${RUN_USAGE}   # several files or a DIR: one row per trace and totals`,
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, outcome: { type: 'string' }, ...RUN_ARGS } });
    const [file] = positionals;
    if (!file) fail('analyze takes a FILE, or a DIR or several files');
    const outcome = values.outcome;
    if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
    const run = runOptionsOf(values);
    if (positionals.length > 1 || isDirectory(file) || run.shard) return analyzeCorpus(positionals, { json: values.json === true, outcome, ...run });
    const one = loadAnalysed(file);
    if (typeof one === 'number') return one; // no analysis of nothing
    const { loaded } = one;
    const a = analyzeTrace(loaded, { outcome });
    if (values.json) {
      process.stdout.write(safeJson(a) + '\n');
      return one.exit;
    }
    const recordOf = (i: number) => {
      const o = loaded.eventOrigins.get(i);
      return o ? recordPlace(o.file ?? file, o.range.start) : 'no record';
    };
    writeLines(process.stdout, analysisLines(file, a, recordOf));
    return one.exit;
  },
};

/**
 * The text lines of `otrace analyze FILE` (trace content made safe for the terminal, lists clipped).
 * @param recordOf where event `i` (index in the file's events) was read, e.g. `FILE:LINE`.
 */
export function analysisLines(file: string, a: Analysis, recordOf: (i: number) => string): string[] {
  return a.traces
    ? [`${safePath(file)}`, `  traces     ${a.traces.length} (each analysed on its own)`, ...a.traces.flatMap((t) => [`  trace ${safe(t.trace_id)} (${t.events} events)`, ...summary(t, recordOf, '    ')])]
    : [`${safePath(file)}`, ...summary(a, recordOf, '  ')];
}

/** The readable lines of one analysis (a file's, or one trace's), each starting with `pad`. */
function summary(a: Omit<Analysis, 'traces'>, recordOf: (i: number) => string, pad: string): string[] {
  const agents = Object.entries(a.credit.agents).sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]));
  const m = a.metrics;
  const say = (text: string) => safe(text, MAX_MESSAGE);
  return [
    `outcome    ${a.outcome.status} (${say(a.outcome.source)})`,
    ...a.findings.map((f) => `${FINDING_LABEL[f.kind].padEnd(10)} ${safe(f.ids[0])} (${safePath(recordOf(f.events[0]))}) ${say(f.inline)}: ${say(f.kind === 'stop' ? withoutStopLead(f.message) : f.message)}`),
    ...(a.loops.length ? [] : ['loops      none']),
    ...(a.blame ? [] : [`blame      ${say(`none (${whyNoBlame(a.outcome, 'give --outcome failure')})`)}`]),
    `credit     ${creditLine(a.credit.signed, agents, a.outcome.notAgentFailure)}`,
    `best stop  ${a.best_stop ? `${safe(a.best_stop.event)} (${a.best_stop.basis}), ${a.best_stop.after.events} events after it` : 'none'}`,
    `V_stop     ${a.v_stop.available ? `${clipList(a.v_stop.points, (p) => `${safe(p.event)} ${p.value.toFixed(2)}`)} (what going on from there gained: below 0, stopping there was better)` : say(a.v_stop.note)}`,
    `metrics    ${metricsLine(m)}`,
    `topology   ${a.topology.guess}${a.topology.declared ? ` (declared ${safe(a.topology.declared)})` : ''}`,
  ].map((l) => pad + l);
}

/**
 * The credit by agent in two decimals (`main +0.42, critic −0.13`), agents whose credit prints as
 * 0.00 left out; without an outcome (or when no agent output caused the failure: an API error) the values are
 * shares of the result (percent) and are named so. The exact values are in `--json`.
 */
function creditLine(signed: boolean, agents: [string, number][], notAgentFailure = false): string {
  const shown = agents.filter(([, v]) => creditWorthShowing(v));
  // the user's lane holds the task's prompt, no agent's work: named so ("codex 70%" and the rest?)
  const who = (k: string) => (/^(?:user|human)$/i.test(k) ? `${safe(k)} (the prompt)` : safe(k));
  const values = shown.length ? clipList(shown.slice(0, 6), ([k, v]) => `${who(k)} ${signed ? formatCredit(v, true) : shareWords(v)}`) : 'none worth showing';
  if (signed) return `by agent ${values}`;
  return `none (${notAgentFailure ? 'the run failed on an API error, which no agent output caused' : 'no outcome recorded'}); share of the result by agent ${values}`;
}

/**
 * The orchestration metrics in words: spawns, how wide and deep, how parallel (two decimals, with
 * what it is the ratio of) and what share of the tokens messages between agents carry (the
 * protocol overhead, a whole percent; in `--json` as the ratio).
 */
function metricsLine(m: Analysis['metrics']): string {
  const spawns = m.spawns === 0 ? 'no spawns' : `${m.spawns} spawn${m.spawns === 1 ? '' : 's'} (at most ${m.max_fan_out} by one agent, ${m.spawn_depth} level${m.spawn_depth === 1 ? '' : 's'} deep)`;
  const unit = m.overhead_basis === 'tokens' ? 'tokens' : 'characters';
  const overhead = m.protocol_overhead === null ? '' : `, messages between agents carry ${Math.round(m.protocol_overhead * 100)}% of the ${unit}`;
  return `${spawns}, parallelism ${m.parallelism.toFixed(2)} (${parallelismBasis(m)})${overhead}`;
}

/** What the parallelism is the ratio of, with units: `lanes busy 16 s / wall 10 s; critical path 10 s`, or `20 events / longest chain 20 events` without a clock. */
function parallelismBasis(m: Analysis['metrics']): string {
  if (m.work_basis === 'events' || m.lane_time === undefined || m.wall_time === undefined) return `${m.total_work} events / longest chain ${m.critical_path} events`;
  const unit = m.work_basis === 'steps' ? 'steps' : 'seconds';
  return `lanes busy ${formatSpan(m.lane_time, unit)} / wall ${formatSpan(m.wall_time, unit)}; critical path ${formatSpan(m.critical_path, unit)}`;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

