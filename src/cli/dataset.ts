/**
 * `otrace dataset stops|findings|events FILE|DIR... [-o OUT] [--format jsonl|parquet] [--outcome
 * failure|success] [--jobs N] [--shard i/n]`: a corpus as a table (corpus-tables.ts), one row per
 * decision point of the stop decision (`stops`, for training a stop policy: src/analysis/stop-dataset.ts;
 * schema in docs/analysis.md), per finding (`findings`) or per event (`events`). JSONL (one JSON object
 * a line; stdout without `-o`) or Parquet (`-o FILE` needed; `features` and `labels` of a stop row
 * flattened into columns). Directories are searched for .json / .jsonl traces; files a parent trace
 * pulls in are counted once (corpus.ts). Traces are read on `--jobs` worker threads; rows come out in
 * file order whatever the number (corpus-run.ts). A trace with a labels sidecar (`<trace>.labels.jsonl`)
 * gets the people's labels in its stop rows' `human_labels` beside otrace's `labels`
 * (src/analysis/labels/stop-labels.ts; columns `human_*` in Parquet). A summary line goes to stderr.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { type Command, fail, MAX_MESSAGE, safe, safePath, terminalLine } from './common';
import { corpusExit } from './corpus';
import { runCorpus, runOptionsOf, RUN_ARGS, RUN_USAGE, type Columns, type JobResult, type JsonlRows } from './corpus-run';
import { TABLES, TABLE_NAMES, type TableName } from './corpus-tables';
import { concatColumns, writeParquet } from './parquet';
import { WrittenRows } from './written-rows';

export const dataset: Command = {
  usage: `otrace dataset stops|findings|events FILE|DIR... [-o OUT] [--format jsonl|parquet] [--outcome failure|success] ${RUN_USAGE}`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { output: { type: 'string', short: 'o' }, outcome: { type: 'string' }, format: { type: 'string' }, ...RUN_ARGS } });
    const [kind, ...paths] = positionals;
    if (!TABLE_NAMES.includes(kind as TableName)) fail(`dataset makes ${TABLE_NAMES.map((t) => `"${t}"`).join(', ')} data (got ${kind === undefined ? 'nothing' : `"${safe(kind)}"`})`);
    const table = kind as TableName;
    if (paths.length === 0) fail(`dataset ${table} takes at least one FILE or DIR`);
    const outcome = values.outcome;
    if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
    const format = values.format ?? (values.output && /\.parquet$/i.test(values.output) ? 'parquet' : 'jsonl');
    if (format !== 'jsonl' && format !== 'parquet') fail(`--format must be jsonl or parquet (got "${safe(format)}")`);
    if (format === 'parquet' && !values.output) fail('--format parquet writes a file: give it with -o FILE.parquet');
    const run = runOptionsOf(values);
    const started = Date.now();
    let fd: number | undefined;
    if (format === 'jsonl') {
      try {
        fd = values.output ? fs.openSync(values.output, 'w') : 1;
      } catch (err) {
        fail(`cannot write ${safePath(values.output)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
      }
    }
    // rows are kept per trace: a trace that a later parent pulls in is dropped with its rows
    const rowsOf = (result: JobResult) => (result as Record<TableName, JsonlRows | undefined>)[table];
    // into a file the rows are written as the traces come, in file order (the threads still reading);
    // stdout gets them at the end: a trace written there cannot be taken back
    const written = fd !== undefined && values.output ? new WrittenRows(fd) : undefined;
    const { results, summary, labelled } = await runCorpus(paths, { kind: 'tables', tables: [table], shape: format === 'jsonl' ? 'jsonl' : 'columns', outcome }, run, written && (({ result }) => written.add(result, rowsOf(result)?.text)));
    let rows = 0;
    if (fd !== undefined) {
      if (written) written.keepOnly(results.map(({ result }) => ({ result, text: rowsOf(result)?.text })));
      for (const { result } of results) {
        const made = rowsOf(result);
        if (!written && made?.text) fs.writeSync(fd, made.text);
        rows += made?.rows ?? 0;
      }
      if (values.output) fs.closeSync(fd);
    } else {
      const data = concatColumns(results.map(({ result }) => (result as Record<TableName, Columns>)[table]));
      rows = data.rows;
      try {
        writeParquet(values.output!, TABLES[table], data, { 'otrace.table': table, ...(run.shard ? { 'otrace.shard': `${run.shard.index}/${run.shard.count}` } : {}) });
      } catch (err) {
        fail(`cannot write ${safePath(values.output)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const left = [
      summary.pulled_in.length ? `${summary.pulled_in.length} pulled in by a parent trace` : '',
      summary.not_traces.length ? `${summary.not_traces.length} not traces` : '',
      summary.unreadable.length ? `${summary.unreadable.length} unreadable` : '',
    ].filter(Boolean);
    const shard = run.shard ? ` of shard ${run.shard.index}/${run.shard.count}` : '';
    const human = labelled ? `, human labels from ${labelled} sidecar${labelled === 1 ? '' : 's'}` : '';
    process.stderr.write(`otrace: ${terminalLine(`${rows} rows from ${summary.traces} traces${shard}${human} in ${seconds.toFixed(1)} s${values.output ? ` -> ${safePath(values.output)}` : ''}${left.length ? ` (left out: ${left.join(', ')})` : ''}`)}\n`);
    return corpusExit(summary, paths);
  },
};

