/**
 * Commands over many traces on every core: the trace files under the paths given (corpus.ts), one
 * shard of them when asked (`--shard i/n`, shard.ts), each read and turned into rows on `--jobs N`
 * threads (this one and N - 1 workers, pool.ts), the results gathered in file order. The output is the same
 * rows in the same order whatever `--jobs`: files a parent trace pulls in are left out by the same
 * rule as on one thread (corpus.ts), applied in file order after the reads.
 */
import * as path from 'node:path';
import { escapeJsonControls } from '../trace/preview';
import { originsOf } from '../trace/model';
import { corpusRow, type CorpusRow } from './corpus-row';
import { TABLES, traceTables, type TableName } from './corpus-tables';
import { errorCount, fail, mappingFile, MAX_MESSAGE, safe, safePath, terminalLine, tryLoad, unreadable, useMapping } from './common';
import { progressBar, traceFiles, type CorpusSummary } from './corpus';
import { defaultJobs, canStartWorkers, runPool } from './pool';
import { filesOfShard, parseShard, type Shard, type ShardBy } from './shard';
import { sidecarOf } from './sidecar-labels';

/** What to make of each trace: a row of `otrace analyze DIR`, or rows of tables (as JSONL text or as columns). */
export type CorpusJob =
  | { kind: 'analyze'; outcome?: 'failure' | 'success' }
  | { kind: 'tables'; tables: TableName[]; shape: 'jsonl' | 'columns'; outcome?: 'failure' | 'success' };

/** A table's rows as columns (name -> values, row for row), and their number. */
export interface Columns {
  rows: number;
  values: Record<string, (string | number | boolean | null)[]>;
}

/** A table's rows as JSONL text (lines, each ending in a newline), and their number (counted where they are made, not by splitting the text again). */
export interface JsonlRows {
  rows: number;
  text: string;
}

/** What a job makes of one trace: a corpus row, or per table its JSONL rows or its columns. */
export type JobResult = CorpusRow | Partial<Record<TableName, JsonlRows | Columns>>;

/**
 * What reading one file gave. `notes`: lines for stderr (its labels sidecar's problems), printed by
 * the command's thread in file order; `labelled`: the trace has a labels sidecar.
 */
type FileOutcome = { unreadable: string } | { notTrace: true } | { children: string[]; errors: boolean; result: JobResult; notes: string[]; labelled: boolean };

/** How to run over the corpus: worker threads and shard. */
export interface RunOptions {
  /** Threads that read traces: this one and `jobs - 1` worker threads (1: this thread only). Default: the core count. */
  jobs?: number;
  shard?: Shard;
  shardBy?: ShardBy;
}

/** The job's result for one trace read. */
function runJob(job: CorpusJob, loaded: Parameters<typeof corpusRow>[0], name: string, file: string, notes: string[]): { result: JobResult; labelled: boolean } {
  if (job.kind === 'analyze') return { result: corpusRow(loaded, name, job.outcome), labelled: false };
  // the people's labels beside otrace's in the stop rows (the sidecar's problems kept for stderr)
  const side = job.tables.includes('stops') ? sidecarOf(file, loaded, { write: (text: string) => notes.push(text) }) : undefined;
  const tables = traceTables(loaded, name, file, job.tables, job.outcome, side?.attached);
  const out: Partial<Record<TableName, JsonlRows | Columns>> = {};
  for (const t of job.tables) {
    const rows = (tables[t] ?? []) as unknown as Record<string, unknown>[];
    if (job.shape === 'jsonl') {
      out[t] = { rows: rows.length, text: rows.map((r) => escapeJsonControls(JSON.stringify(r)) + '\n').join('') };
      continue;
    }
    const values: Columns['values'] = {};
    for (const c of TABLES[t]) values[c.name] = rows.map((r) => c.value(r));
    out[t] = { rows: rows.length, values };
  }
  return { result: out, labelled: side !== undefined };
}

/** Reads one file and runs the job on it (never throws for a file: an unreadable one is an outcome). */
function readOne(job: CorpusJob, file: string, name: string): FileOutcome {
  const loaded = tryLoad(file);
  if ('error' in loaded) return { unreadable: unreadable(file, loaded.error) };
  if (loaded.format === 'unknown') return { notTrace: true };
  const abs = path.resolve(file);
  const children: string[] = [];
  for (const o of [...originsOf(loaded.eventOrigins), ...originsOf(loaded.edgeOrigins)]) {
    if (!o?.file) continue;
    const child = path.resolve(o.file); // importers name other files by the path the parent was opened with
    if (child !== abs) children.push(child);
  }
  const notes: string[] = [];
  const { result, labelled } = runJob(job, loaded, name, file, notes);
  return { children: [...new Set(children)], errors: errorCount(loaded) > 0, result, notes, labelled };
}

/** A task of the pool: one file, and what the worker needs to read it like this thread would. */
interface FileTask {
  file: string;
  name: string;
}

/** What every worker of a corpus run gets once. */
interface PoolData {
  job: CorpusJob;
  map: string | undefined;
}

/** The worker side: answers a {@link FileTask} (bin.ts calls it through pool.ts `serveTasks`). */
export function handleFileTask(task: FileTask, data: unknown): FileOutcome {
  const { job, map } = data as PoolData;
  if (mappingFile() !== map) useMapping(map);
  return readOne(job, task.file, task.name);
}

/**
 * Takes a trace's result as soon as it is known that the trace is kept so far: in file order, once it
 * and every file before it are read. A trace that a parent read later pulls in is still dropped from
 * {@link runCorpus}'s results (rare: a parent's files are named after it, or sit below it).
 */
export type OnKept = (trace: { name: string; result: JobResult }) => void;

/**
 * Reads every trace under `paths` (or of one shard of them) once and runs `job` on it, on `jobs`
 * worker threads; returns the results in file order (those of files a parent pulls in removed) and
 * what was left out. With a shard, a kept trace that pulls in a file of another shard is named on
 * stderr (that shard reads the file as a trace of its own: `--shard-by folder` keeps them together).
 * @param onKept called with each trace kept so far, in file order, while the others are still read
 *   (to write output as it comes: the results say at the end which of them stay).
 */
export async function runCorpus(paths: string[], job: CorpusJob, options: RunOptions = {}, onKept?: OnKept): Promise<{ results: { name: string; result: JobResult }[]; summary: CorpusSummary; labelled: number }> {
  const all = traceFiles(paths);
  const files = options.shard ? filesOfShard(all, options.shard, options.shardBy ?? 'file') : all;
  const searchedDir = all.some((f) => f.name !== f.file);
  const bar = progressBar(files.length, searchedDir);
  const jobs = Math.max(1, Math.floor(options.jobs ?? defaultJobs()));
  // the rule of corpus.ts forEachTrace, in file order: a file pulled in by a parent read before it is
  // left out (unread on one thread); one read before the parent that pulls it in is dropped at the end
  const pulledIn = new Set<string>();
  const kept: { abs: string; name: string; errors: boolean; children: string[]; result: JobResult; labelled: boolean }[] = [];
  const summary: CorpusSummary = { traces: 0, pulled_in: [], not_traces: [], unreadable: [], unreadable_why: [], with_errors: 0 };
  /** File k by that rule, from its outcome (read by the pool) or read now (one thread). */
  const take = (k: number, outcome?: FileOutcome) => {
    const f = files[k];
    const abs = path.resolve(f.file);
    if (pulledIn.has(abs)) {
      summary.pulled_in.push(f.name);
      return;
    }
    const o = outcome ?? readOne(job, f.file, f.name);
    if ('unreadable' in o) {
      summary.unreadable.push(f.name);
      summary.unreadable_why.push(o.unreadable);
      return;
    }
    if ('notTrace' in o) {
      summary.not_traces.push(f.name);
      return;
    }
    for (const c of o.children) pulledIn.add(c);
    for (const note of o.notes) process.stderr.write(note);
    kept.push({ abs, name: f.name, errors: o.errors, children: o.children, result: o.result, labelled: o.labelled });
    onKept?.({ name: f.name, result: o.result });
  };
  if (jobs > 1 && files.length > 1 && canStartWorkers()) {
    const data: PoolData = { job, map: mappingFile() };
    // outcomes come in any order: each is taken once those of all files before it are in
    const waiting = new Map<number, FileOutcome>();
    let next = 0;
    await runPool<FileTask, FileOutcome>(
      files.map((f) => ({ file: f.file, name: f.name })),
      jobs,
      data,
      (k, outcome) => {
        bar.tick(files[k].name);
        waiting.set(k, outcome);
        for (let o = waiting.get(next); o !== undefined; o = waiting.get(next)) {
          waiting.delete(next);
          take(next++, o);
        }
      },
      (task) => handleFileTask(task, data), // this thread is one of the `jobs`
    );
  } else {
    files.forEach((f, k) => {
      bar.tick(f.name);
      take(k);
    });
  }
  bar.done();
  const results = kept.filter((r) => {
    if (!pulledIn.has(r.abs)) return true;
    summary.pulled_in.push(r.name);
    return false;
  });
  summary.traces = results.length;
  summary.with_errors = results.filter((r) => r.errors).length;
  if (options.shard) warnAcrossShards(results, all, files);
  return { results: results.map(({ name, result }) => ({ name, result })), summary, labelled: results.filter((r) => r.labelled).length };
}

/** Names on stderr each trace of this shard that pulls in a file of the corpus outside the shard. */
function warnAcrossShards(results: { name: string; children: string[] }[], all: { file: string; name: string }[], mine: { file: string }[]): void {
  const inShard = new Set(mine.map((f) => path.resolve(f.file)));
  const byAbs = new Map(all.map((f) => [path.resolve(f.file), f.name]));
  for (const r of results) {
    const away = r.children.filter((c) => byAbs.has(c) && !inShard.has(c));
    if (away.length === 0) continue;
    const names = away.map((c) => safePath(byAbs.get(c))).join(', ');
    process.stderr.write(`otrace: ${terminalLine(`warning: ${safePath(r.name)} pulls in ${names}, which another shard reads as a trace of its own: run the shards with --shard-by folder to keep them together`)}\n`);
  }
}

/** The options of every command over a corpus, for `parseArgs`: `--jobs N`, `--shard i/n`, `--shard-by file|folder`. */
export const RUN_ARGS = { jobs: { type: 'string', short: 'j' }, shard: { type: 'string' }, 'shard-by': { type: 'string' } } as const;

/** The usage words of {@link RUN_ARGS}. */
export const RUN_USAGE = '[--jobs N] [--shard i/n [--shard-by file|folder]]';

/**
 * {@link RunOptions} from the values of {@link RUN_ARGS}; exits with the usage (code 2) on a bad value.
 * `--jobs` is a whole number from 1 to 256 (default: the core count).
 */
export function runOptionsOf(values: { jobs?: string; shard?: string; 'shard-by'?: string }): RunOptions {
  const out: RunOptions = {};
  if (values.jobs !== undefined) {
    const n = /^\d{1,3}$/.test(values.jobs.trim()) ? Number(values.jobs.trim()) : NaN;
    if (!(n >= 1 && n <= 256)) fail(`--jobs takes a whole number of worker threads from 1 to 256 (got "${safe(values.jobs)}")`);
    out.jobs = n;
  }
  if (values.shard !== undefined) {
    const shard = parseShard(values.shard);
    if (typeof shard === 'string') fail(safe(shard, MAX_MESSAGE));
    out.shard = shard;
  }
  const by = values['shard-by'];
  if (by !== undefined) {
    if (by !== 'file' && by !== 'folder') fail(`--shard-by takes file or folder (got "${safe(by)}")`);
    if (!out.shard) fail('--shard-by goes with --shard i/n');
    out.shardBy = by;
  }
  return out;
}
