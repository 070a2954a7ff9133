/**
 * `npm run eval [CORPUS]`: scores the analysis (src/analysis) on labelled real traces and prints
 * the tables. A development script, not a test: it reads the corpus (default `../shared/corpus`
 * from the repository root, or the path argument, or env OTRACE_CORPUS).
 *
 * - Who&When (mingyin1/Agents_Failure_Attribution): `blame` against the human labels
 *   `mistake_agent` / `mistake_step` (the importer keeps them in trace.metadata.ground_truth; only
 *   this script reads them). Every file of the benchmark is a failed run, which is the benchmark's
 *   premise, so the analysis is told `outcome: 'failure'`; nothing else of the labels reaches it.
 *   Random baseline, exact expectation: a uniform pick among the trace's agents (lanes) is right
 *   with probability [label in lanes] / #lanes; a uniform pick among its steps (history entries)
 *   with probability 1 / #steps. Published reference: GPT-4o prompting (all-at-once), 53.5 %
 *   agent-level and 14.2 % step-level (Zhang et al., ICML 2025).
 * - MAST (Cemri et al. 2025): the stop verdicts of run stops (3.1 premature, 1.5 unaware of
 *   termination), loops (1.3 step repetition) and verification findings (3.2/3.3) against the trace
 *   labels of the MAD records and the early AG2 annotation in the corpus and the human-labelled
 *   records in ../shared/cases/mast-labelled (env OTRACE_MAST_CASES), precision first, per system,
 *   with every wrong verdict and its evidence (scripts/eval-stops.ts).
 * - Codex and Claude Code: identical tool calls among the imported events (groups, and calls beyond
 *   the first) against a count made here from the raw JSONL (same tool name with the same
 *   arguments) and the count stated in corpus/codex/SOURCE.md; beside them, how many of those
 *   repeats the analysis calls loops (repeated_tool_call: same agent, no state change between,
 *   same result).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeTrace, type Analysis } from '../src/analysis';
import { loadTrace } from '../src/trace/formats';
import type { LoadedTrace } from '../src/trace/model';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import { whoAndWhenReport } from './eval-blame';
import { stopVerdictReport } from './eval-stops';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const corpus = path.resolve(positional[0] ?? process.env.OTRACE_CORPUS ?? path.join(__dirname, '..', '..', 'shared', 'corpus'));
// human-labelled MAD records beside the corpus (../shared/cases/mast-labelled), when there
const cases = path.resolve(process.env.OTRACE_MAST_CASES ?? path.join(corpus, '..', 'cases', 'mast-labelled'));

function load(file: string): LoadedTrace {
  return loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
}

function list(dir: string, ext: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
    .map((f) => path.join(dir, f));
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const sameAgent = (a: string, b: string) => a.toLowerCase().replace(/[^a-z0-9]/g, '') === b.toLowerCase().replace(/[^a-z0-9]/g, '');

interface Row {
  label: string;
  cells: string[];
}

function table(header: string[], rows: Row[]): string {
  const all = [header, ...rows.map((r) => [r.label, ...r.cells])];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map((r) => line([r.label, ...r.cells]))].join('\n');
}

// ---------------------------------------------------------------- Who&When
interface WwScore {
  n: number;
  agent: number;
  step: number;
  randAgent: number;
  randStep: number;
  nullBlame: number;
  bases: Record<string, number>;
}

function scoreWhoAndWhen(): { rows: Row[]; details: string[] } {
  const subsets = ['Algorithm-Generated', 'Hand-Crafted'];
  const scores: Record<string, WwScore> = {};
  const details: string[] = [];
  for (const subset of subsets) {
    const s: WwScore = { n: 0, agent: 0, step: 0, randAgent: 0, randStep: 0, nullBlame: 0, bases: {} };
    for (const file of list(path.join(corpus, 'who-and-when', subset), '.json')) {
      const loaded = load(file);
      const gt = (loaded.trace.metadata?.ground_truth ?? {}) as { mistake_agent?: string; mistake_step?: number };
      if (typeof gt.mistake_agent !== 'string' || typeof gt.mistake_step !== 'number') continue;
      const analysis: Analysis = analyzeTrace(loaded, { outcome: 'failure' });
      const lanes = [...new Set(loaded.trace.events.map((e) => e.agent))];
      const steps = new Set<number>();
      for (let i = 0; i < loaded.eventOrigins.length; i++) {
        const record = loaded.eventOrigins.record(i);
        if (record !== undefined) steps.add(record);
      }
      s.n++;
      s.randAgent += lanes.some((a) => sameAgent(a, gt.mistake_agent!)) ? 1 / lanes.length : 0;
      s.randStep += steps.has(gt.mistake_step) ? 1 / steps.size : 0;
      const b = analysis.blame;
      if (!b) {
        s.nullBlame++;
        continue;
      }
      s.bases[b.basis] = (s.bases[b.basis] ?? 0) + 1;
      const okAgent = sameAgent(b.agent, gt.mistake_agent);
      const okStep = b.record === gt.mistake_step;
      if (okAgent) s.agent++;
      if (okStep) s.step++;
      details.push(`${subset}/${path.basename(file)}: blame ${b.agent}@${b.record} (${b.basis}) label ${gt.mistake_agent}@${gt.mistake_step} ${okAgent ? 'A' : '-'}${okStep ? 'S' : '-'}`);
    }
    scores[subset] = s;
  }
  const total: WwScore = { n: 0, agent: 0, step: 0, randAgent: 0, randStep: 0, nullBlame: 0, bases: {} };
  for (const s of Object.values(scores)) {
    total.n += s.n;
    total.agent += s.agent;
    total.step += s.step;
    total.randAgent += s.randAgent;
    total.randStep += s.randStep;
    total.nullBlame += s.nullBlame;
    for (const [k, v] of Object.entries(s.bases)) total.bases[k] = (total.bases[k] ?? 0) + v;
  }
  const row = (label: string, s: WwScore): Row => ({
    label,
    cells: [
      String(s.n),
      `${pct(s.agent / s.n)} (${s.agent})`,
      pct(s.randAgent / s.n),
      `${pct(s.step / s.n)} (${s.step})`,
      pct(s.randStep / s.n),
      Object.entries(s.bases)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') + (s.nullBlame ? `, none ${s.nullBlame}` : ''),
    ],
  });
  return { rows: [...subsets.filter((k) => scores[k].n > 0).map((k) => row(k, scores[k])), row('all', total)], details };
}

// ---------------------------------------------------------------- Codex and Claude Code
/**
 * Repeated identical tool calls counted from the raw JSONL: [groups, calls beyond the first].
 * Codex: response_item function_call / custom_tool_call (name + arguments). Claude Code: tool_use
 * blocks (name + input) of the session, its sub-agent files and the sub-agent messages mirrored in
 * `agent_progress` records, each call counted once (by tool_use id).
 */
function rawRepeats(file: string, kind: 'codex' | 'claude'): [number, number] {
  const counts = new Map<string, number>();
  const seenIds = new Set<string>();
  const files = [file];
  if (kind === 'claude') {
    const dir = path.join(file.replace(/\.jsonl$/, ''), 'subagents');
    files.push(...list(dir, '.jsonl'));
  }
  const useBlocks = (content: unknown) => {
    if (!Array.isArray(content)) return;
    for (const block of content as Record<string, unknown>[]) {
      if (block?.type !== 'tool_use' || typeof block.id !== 'string' || seenIds.has(block.id)) continue;
      seenIds.add(block.id);
      const key = `${block.name}\u0000${JSON.stringify(block.input)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  };
  for (const f of files) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (kind === 'codex') {
        const p = r.payload as Record<string, unknown> | undefined;
        if (r.type === 'response_item' && p && (p.type === 'function_call' || p.type === 'custom_tool_call')) {
          const key = `${p.name}\u0000${String(p.arguments ?? p.input ?? '')}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      } else if (r.type === 'assistant') {
        useBlocks((r.message as { content?: unknown } | undefined)?.content);
      } else if (r.type === 'progress') {
        const data = r.data as { type?: string; message?: { message?: { content?: unknown } } } | undefined;
        if (data?.type === 'agent_progress') useBlocks(data.message?.message?.content);
      }
    }
  }
  let groups = 0;
  let extra = 0;
  for (const c of counts.values()) if (c > 1) {
    groups++;
    extra += c - 1;
  }
  return [groups, extra];
}

/** Identical tool calls among the imported events (same tool, same arguments, any agent): [groups, calls beyond the first]. */
function identicalCalls(loaded: LoadedTrace): [number, number] {
  const counts = new Map<string, number>();
  for (const e of loaded.trace.events) {
    if (e.type !== 'tool_call' || typeof e.content !== 'string') continue;
    const key = `${e.tool ?? ''}\u0000${e.content.trim()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const repeated = [...counts.values()].filter((c) => c > 1);
  return [repeated.length, repeated.reduce((s, c) => s + c - 1, 0)];
}

function scoreRepeats(): Row[] {
  const rows: Row[] = [];
  const stated: Record<string, string> = {};
  const source = path.join(corpus, 'codex', 'SOURCE.md');
  if (fs.existsSync(source)) {
    for (const m of fs.readFileSync(source, 'utf8').matchAll(/rollout-…(T[\d-]+)-\S*\s*\|[^|]*\|([^|\n]*)\|/g)) {
      const n = /(\d+) repeated identical calls/.exec(m[2]);
      stated[m[1]] = n ? n[1] : '–';
    }
  }
  const inputs: [string, 'codex' | 'claude'][] = [
    ...list(path.join(corpus, 'codex', 'raw', 'sessions'), '.jsonl').map((f) => [f, 'codex'] as [string, 'codex']),
    ...list(path.join(corpus, 'claude-code'), '.jsonl').map((f) => [f, 'claude'] as [string, 'claude']),
  ];
  for (const [file, kind] of inputs) {
    const loaded = load(file);
    const name = path.basename(file);
    const [groups, extra] = rawRepeats(file, kind);
    const key = /(T\d{2}-\d{2}-\d{2})/.exec(name)?.[1];
    if (loaded.format === 'unknown') {
      rows.push({ label: `${kind} ${name.slice(0, 40)}`, cells: ['not imported', '', `${groups} / ${extra}`, key ? (stated[key] ?? '–') : '–'] });
      continue;
    }
    const [importedGroups, importedExtra] = identicalCalls(loaded);
    const found = analyzeTrace(loaded).loops.filter((l) => l.kind === 'repeated_tool_call');
    const foundExtra = found.reduce((s, l) => s + l.repetitions - 1, 0);
    rows.push({
      label: `${kind} ${name.slice(0, 40)}`,
      cells: [String(loaded.trace.events.length), `${importedGroups} / ${importedExtra}`, `${groups} / ${extra}`, key ? (stated[key] ?? '–') : '–', `${found.length} / ${foundExtra}`],
    });
  }
  return rows;
}

function main(): void {
  const verbose = process.argv.includes('--verbose') || process.env.OTRACE_EVAL_VERBOSE === '1';
  process.stdout.write(`corpus: ${corpus}\n\n`);
  const t0 = Date.now();
  const ww = scoreWhoAndWhen();
  process.stdout.write('## Who&When: blame (decisive agent and step) vs mistake_agent / mistake_step\n');
  process.stdout.write(table(['subset', 'files', 'agent acc', 'random agent', 'step acc', 'random step', 'basis'], ww.rows) + '\n');
  process.stdout.write('published (GPT-4o, all-at-once prompting): agent 53.5%, step 14.2%\n\n');
  if (verbose) process.stdout.write(ww.details.join('\n') + '\n\n');
  process.stdout.write('## Who&When: does it generalize? (leave-one-subset-out priors, intervals, rule ablation)\n');
  process.stdout.write(whoAndWhenReport(corpus, verbose) + '\n');
  process.stdout.write('## MAST: stop verdicts, loops and verification findings vs trace labels (precision first)\n');
  process.stdout.write(stopVerdictReport(corpus, cases) + '\n\n');
  process.stdout.write('## Repeated identical tool calls (groups / calls beyond the first)\n');
  process.stdout.write('imported: identical calls among the imported events (checks the importer against the raw count); loops: the repeats that are wasted work (same agent, no state change between, same result)\n');
  process.stdout.write(table(['trace', 'events', 'imported', 'raw count', 'SOURCE.md', 'loops'], scoreRepeats()) + '\n');
  process.stdout.write(`\n(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
}

main();
