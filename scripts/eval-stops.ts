/**
 * The stop verdicts (and loops, verification findings) against MAST's trace-level labels, for
 * `npm run eval`. Precision comes first: a wrong "premature" costs more trust than a missed one.
 *
 * A verdict and the MAST code it claims (Cemri et al. 2025, arXiv 2503.13657; the survey's O5 stop
 * failures) are src/analysis/labels/recorded.ts's MAST_VERDICTS, which `otrace labels agreement`
 * judges too. Turn and phase ends carry no task verdict, so they never count. Records: the MAD records in
 * corpus/mast/ChatDev_MAD_records (labels by MAST's LLM judge), the early AG2 traces with their
 * human annotation (renamed codes mapped by the importer), and the human-labelled MAD records in
 * cases/mast-labelled (majority of three annotators). Only this script reads the labels; the
 * analysis never sees them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeTrace } from '../src/analysis';
import { loadTrace } from '../src/trace/formats';
import type { LoadedTrace } from '../src/trace/model';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import { MAST_VERDICTS as KINDS, mastVerdictLabel } from '../src/analysis/labels/recorded';

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
      const label = mastVerdictLabel(loaded.trace.metadata, k);
      if (label === undefined) continue;
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
