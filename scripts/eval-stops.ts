/**
 * The stop verdicts (and loops, verification findings) against MAST's trace-level labels, for
 * `npm run eval`. Precision comes first: a wrong "premature" costs more trust than a missed one.
 *
 * A verdict and the MAST code it claims (Cemri et al. 2025, arXiv 2503.13657, definitions in its
 * taxonomy; the survey's O5 stop failures):
 * - 1.3 step repetition: a loop finding of any kind;
 * - 1.5 unaware of termination conditions: a run stop judged delayed or never stopped;
 * - 3.1 premature termination: a run stop judged premature;
 * - 3.2 / 3.3 no, incomplete or incorrect verification: a verification finding (either label counts).
 * Turn and phase ends carry no task verdict, so they never count. Records: the MAD records in
 * corpus/mast/ChatDev_MAD_records (labels by MAST's LLM judge), the early AG2 traces with their
 * human annotation (renamed codes mapped by the importer), and the human-labelled MAD records in
 * cases/mast-labelled (majority of three annotators). Only this script reads the labels; the
 * analysis never sees them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeTrace, type Analysis } from '../src/analysis';
import { loadTrace } from '../src/trace/formats';
import type { LoadedTrace } from '../src/trace/model';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';

/** The MAST codes scored, and the verdict that claims each. */
const KINDS: { code: string; name: string; labels: string[]; predicted: (a: Analysis) => boolean; evidence: (a: Analysis) => string }[] = [
  {
    code: '3.1',
    name: '3.1 premature termination',
    labels: ['3.1'],
    predicted: (a) => runStops(a).some((s) => s.modes.includes('premature')),
    evidence: (a) => runStops(a).filter((s) => s.modes.includes('premature')).flatMap((s) => s.evidence).join('; '),
  },
  {
    code: '1.5',
    name: '1.5 unaware of termination',
    labels: ['1.5'],
    predicted: (a) => runStops(a).some((s) => s.modes.includes('delayed') || s.modes.includes('no_stop')),
    evidence: (a) => runStops(a).filter((s) => s.modes.includes('delayed') || s.modes.includes('no_stop')).flatMap((s) => s.evidence).join('; '),
  },
  {
    code: '1.3',
    name: '1.3 step repetition',
    labels: ['1.3'],
    predicted: (a) => a.loops.length > 0,
    evidence: (a) => a.loops.map((l) => `${l.kind}: ${l.message}`).join('; '),
  },
  {
    code: '3.2/3.3',
    name: '3.2/3.3 verification',
    labels: ['3.2', '3.3'],
    predicted: (a) => (a.verification ?? []).length > 0,
    evidence: (a) => (a.verification ?? []).map((v) => v.message).join('; '),
  },
];

function runStops(a: Analysis): Analysis['stops'] {
  return a.stops.filter((s) => (s.scope ?? 'run') === 'run');
}

interface Count {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** A labelled record: where it is from, which system ran it and who labelled it. */
interface Record_ {
  file: string;
  system: string;
  labelledBy: 'human' | 'LLM judge';
}

/** Reads a MAST label (0/1, 'yes'/'no', boolean) from the importer's metadata, or undefined. */
export function mastLabel(meta: Record<string, unknown> | undefined, code: string): boolean | undefined {
  if (!meta) return undefined;
  const gt = meta.ground_truth as Record<string, unknown> | undefined;
  for (const holder of [gt?.mast, gt?.early_mapped, gt?.mast_annotation, meta.mast_annotation] as unknown[]) {
    if (!holder || typeof holder !== 'object') continue;
    const v = (holder as Record<string, unknown>)[code];
    if (v === 1 || v === true || v === 'yes' || v === '1') return true;
    if (v === 0 || v === false || v === 'no' || v === '0') return false;
  }
  return undefined;
}

function records(corpus: string, cases: string): Record_[] {
  const list = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f)) : []);
  return [
    ...list(path.join(corpus, 'mast', 'ChatDev_MAD_records')).map((file) => ({ file, system: 'ChatDev', labelledBy: 'LLM judge' as const })),
    ...list(path.join(corpus, 'mast', 'AG2_early_human_annotated')).map((file) => ({ file, system: 'AG2', labelledBy: 'human' as const })),
    ...list(cases).map((file) => ({ file, system: /ChatDev/i.test(path.basename(file)) ? 'ChatDev' : 'AG2', labelledBy: 'human' as const })),
  ];
}

const f2 = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(2));
const precision = (c: Count) => (c.tp + c.fp ? c.tp / (c.tp + c.fp) : NaN);
const recall = (c: Count) => (c.tp + c.fn ? c.tp / (c.tp + c.fn) : NaN);

/**
 * The report: per kind and per system, labelled records, tp/fp/fn/tn, precision then recall, and
 * every wrong verdict with its evidence. Records without a label for a kind are not counted for it.
 * @param corpus the corpus folder (holds mast/)
 * @param cases the folder of human-labelled MAD records (cases/mast-labelled), when present
 */
export function stopVerdictReport(corpus: string, cases: string): string {
  const counts = new Map<string, Count>();
  const count = (key: string) => counts.get(key) ?? (counts.set(key, { tp: 0, fp: 0, fn: 0, tn: 0 }), counts.get(key)!);
  const wrong: string[] = [];
  const seen: string[] = [];
  for (const r of records(corpus, cases)) {
    let loaded: LoadedTrace;
    try {
      loaded = loadTrace(fs.readFileSync(r.file, 'utf8'), r.file, nodeFileAccess);
    } catch (err) {
      wrong.push(`${path.basename(r.file)}: not read (${(err as Error).message})`);
      continue;
    }
    if (loaded.format === 'unknown') continue;
    const a = analyzeTrace(loaded);
    seen.push(`${path.basename(r.file)} (${r.system}, ${r.labelledBy})`);
    for (const k of KINDS) {
      const labels = k.labels.map((c) => mastLabel(loaded.trace.metadata, c));
      if (labels.every((l) => l === undefined)) continue;
      const label = labels.some((l) => l === true);
      const said = k.predicted(a);
      for (const key of [`${k.code}|all`, `${k.code}|${r.system}`]) {
        const c = count(key);
        if (said && label) c.tp++;
        else if (said) c.fp++;
        else if (label) c.fn++;
        else c.tn++;
      }
      if (said !== label) {
        wrong.push(`${path.basename(r.file)} ${k.name}: ${said ? `said, labelled 0 (${r.labelledBy}) — ${k.evidence(a).slice(0, 300)}` : `missed, labelled 1 (${r.labelledBy})`}`);
      }
    }
  }
  const systems = [...new Set(records(corpus, cases).map((r) => r.system))].sort();
  const header = ['verdict', 'system', 'labelled', 'tp/fp/fn/tn', 'precision', 'recall'];
  const rows: string[][] = [];
  for (const k of KINDS) {
    for (const s of ['all', ...systems]) {
      const c = counts.get(`${k.code}|${s}`);
      if (!c) continue;
      rows.push([k.name, s, String(c.tp + c.fp + c.fn + c.tn), `${c.tp}/${c.fp}/${c.fn}/${c.tn}`, f2(precision(c)), f2(recall(c))]);
    }
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((x, i) => (i < 2 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join(' | ')} |`;
  return [
    `records: ${seen.join(', ')}`,
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    wrong.length ? 'wrong verdicts:' : 'wrong verdicts: none',
    ...wrong.map((w) => `  ${w}`),
  ].join('\n');
}
