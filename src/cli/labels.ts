/**
 * `otrace labels export FILE|DIR... [--format openinference|otel] [-o FILE]` and `otrace labels
 * agreement FILE|DIR... [--outcome failure|success] [--json]`: the labels people gave events (the
 * `<trace>.labels.jsonl` sidecars next to the traces) for other tools, and set against otrace's own
 * verdicts (src/analysis/labels/). Traces without a sidecar are skipped; sidecar problems go to stderr.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeIndex, TraceIndex } from '../analysis';
import { judgeLabels, formatAgreement, tallyAgreement, type Judgement } from '../analysis/labels/agreement';
import { openInferenceAnnotations, otelEvaluationLogs, type LabelsOfTrace } from '../analysis/labels/annotations';
import { sidecarPath } from '../analysis/labels/sidecar';
import { escapeJsonControls } from '../trace/preview';
import { fail, MAX_MESSAGE, MAX_PATH, safe, safeJson, terminalLine, type Command } from './common';
import { corpusExit, forEachTrace, traceFiles } from './corpus';
import { sidecarOf } from './sidecar-labels';

export const labels: Command = {
  usage: 'otrace labels export FILE|DIR... [--format openinference|otel] [-o FILE] | otrace labels agreement FILE|DIR... [--outcome failure|success] [--json]',
  run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { output: { type: 'string', short: 'o' }, format: { type: 'string' }, outcome: { type: 'string' }, json: { type: 'boolean' } },
    });
    const [action, ...paths] = positionals;
    if (action !== 'export' && action !== 'agreement') fail(`labels does "export" or "agreement" (got ${action === undefined ? 'nothing' : `"${safe(action)}"`})`);
    if (paths.length === 0) fail(`labels ${action} takes at least one FILE or DIR`);
    const outcome = values.outcome;
    if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
    const format = values.format ?? 'openinference';
    if (format !== 'openinference' && format !== 'otel') fail('--format must be openinference or otel');
    // only traces with a sidecar are read
    const withSidecar = traceFiles(paths).filter((f) => fs.existsSync(sidecarPath(f.file)));
    if (withSidecar.length === 0) {
      process.stderr.write(`otrace: ${terminalLine(`no labels found: no trace under ${paths.map((p) => safe(p, MAX_PATH)).join(', ')} has a .labels.jsonl file next to it`)}\n`);
      return 1;
    }
    let unattached = 0;
    let invalid = 0;
    const { results, summary } = forEachTrace(
      withSidecar.map((f) => f.file),
      (loaded, name, file) => {
        const side = sidecarOf(file, loaded);
        if (!side) return undefined;
        unattached += side.unattached.length;
        invalid += side.invalid;
        const traceId = typeof loaded.trace.trace_id === 'string' ? loaded.trace.trace_id : undefined;
        const of: LabelsOfTrace = { trace: name, traceId, labels: [...side.attached, ...side.unattached.map((u) => ({ record: u.record }))] };
        if (action === 'export') return { of, judgements: [] as Judgement[] };
        const index = new TraceIndex(loaded);
        try {
          return { of, judgements: judgeLabels(analyzeIndex(index, { outcome }), side.attached) };
        } finally {
          index.free();
        }
      },
    );
    const done = results.map((r) => r.result).filter((r) => r !== undefined);
    const count = done.reduce((n, r) => n + r.of.labels.length, 0);
    const notes = [unattached ? `${unattached} not attached to an event` : '', invalid ? `${invalid} sidecar lines not labels` : ''].filter(Boolean).join(', ');
    if (action === 'export') {
      const body = format === 'otel' ? otelEvaluationLogs(done.map((r) => r.of)) : openInferenceAnnotations(done.map((r) => r.of));
      const text = escapeJsonControls(JSON.stringify(body, null, 2)) + '\n';
      try {
        if (values.output) fs.writeFileSync(values.output, text);
        else process.stdout.write(text);
      } catch (err) {
        fail(`cannot write ${safe(values.output, MAX_PATH)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
      }
      process.stderr.write(`otrace: ${terminalLine(`${count} labels from ${done.length} traces as ${format === 'otel' ? 'OTel gen_ai.evaluation.result log records' : 'OpenInference span annotations'}${values.output ? ` -> ${safe(values.output, MAX_PATH)}` : ''}${notes ? ` (${notes})` : ''}`)}\n`);
      return corpusExit(summary, paths);
    }
    const table = tallyAgreement(done.flatMap((r) => r.judgements));
    const each = done.flatMap((r) => r.judgements.map((j) => ({ trace: r.of.trace, ...j, agree: j.agree ?? null })));
    if (values.json) process.stdout.write(safeJson({ traces: done.length, labels: count, unattached, kinds: table, judgements: each }) + '\n');
    else {
      process.stdout.write(`${terminalLine(`otrace's verdicts against ${count} labels people gave on ${done.length} traces${notes ? ` (${notes})` : ''}`)}\n`);
      process.stdout.write(formatAgreement(table) + '\n');
      process.stdout.write('agreement = agree / (agree + disagree); unknown: otrace gives no verdict there (no run stop, no blame, unsigned credit); notes are not judged\n');
    }
    return corpusExit(summary, paths);
  },
};
