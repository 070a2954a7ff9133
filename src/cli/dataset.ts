/**
 * `otrace dataset stops FILE|DIR... -o stops.jsonl [--outcome failure|success]`: stop data for
 * training, one JSON row per decision point (src/analysis/stop-dataset.ts; schema in
 * docs/analysis.md). Directories are searched for .json / .jsonl traces; files a parent trace pulls in
 * are counted once (corpus.ts). A trace with a labels sidecar (`<trace>.labels.jsonl`) gets the people's
 * labels in `human_labels` beside otrace's `labels` (src/analysis/labels/stop-labels.ts). Without `-o` the rows go to stdout. A summary line goes to stderr.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeIndex, TraceIndex } from '../analysis';
import { stopRows } from '../analysis/stop-dataset';
import { withHumanLabels } from '../analysis/labels/stop-labels';
import { escapeJsonControls } from '../trace/preview';
import { fail, MAX_MESSAGE, MAX_PATH, safe, terminalLine, type Command } from './common';
import { corpusExit, forEachTrace } from './corpus';
import { sidecarOf } from './sidecar-labels';

export const dataset: Command = {
  usage: 'otrace dataset stops FILE|DIR... [-o stops.jsonl] [--outcome failure|success]',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { output: { type: 'string', short: 'o' }, outcome: { type: 'string' } } });
    const [kind, ...paths] = positionals;
    if (kind !== 'stops') fail(`dataset makes "stops" data (got ${kind === undefined ? 'nothing' : `"${safe(kind)}"`})`);
    if (paths.length === 0) fail('dataset stops takes at least one FILE or DIR');
    const outcome = values.outcome;
    if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
    const started = Date.now();
    let fd: number;
    try {
      fd = values.output ? fs.openSync(values.output, 'w') : 1;
    } catch (err) {
      fail(`cannot write ${safe(values.output, MAX_PATH)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
    }
    // rows are buffered per trace: a trace that a later parent pulls in is dropped with its rows
    let labelled = 0;
    const { results, summary } = forEachTrace(paths, (loaded, name, file) => {
      const index = new TraceIndex(loaded);
      try {
        const side = sidecarOf(file, loaded); // people's labels beside otrace's (problems to stderr)
        if (side) labelled++;
        return withHumanLabels(stopRows(index, analyzeIndex(index, { outcome }), name), index, side?.attached).map((r) => escapeJsonControls(JSON.stringify(r)));
      } finally {
        index.free(); // its typed arrays' memory back at once (src/analysis/arena.ts)
      }
    });
    let rows = 0;
    for (const { result } of results) {
      if (result.length) fs.writeSync(fd, result.join('\n') + '\n');
      rows += result.length;
    }
    if (values.output) fs.closeSync(fd);
    const seconds = (Date.now() - started) / 1000;
    const left = [
      summary.pulled_in.length ? `${summary.pulled_in.length} pulled in by a parent trace` : '',
      summary.not_traces.length ? `${summary.not_traces.length} not traces` : '',
      summary.unreadable.length ? `${summary.unreadable.length} unreadable` : '',
    ].filter(Boolean);
    const human = labelled ? `, human labels from ${labelled} sidecar${labelled === 1 ? '' : 's'}` : '';
    process.stderr.write(`otrace: ${terminalLine(`${rows} rows from ${summary.traces} traces${human} in ${seconds.toFixed(1)} s${values.output ? ` -> ${safe(values.output, MAX_PATH)}` : ''}${left.length ? ` (left out: ${left.join(', ')})` : ''}`)}\n`);
    return corpusExit(summary, paths);
  },
};
