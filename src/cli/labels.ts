/**
 * `otrace labels export FILE|DIR... [--format openinference|otel] [-o FILE]` and `otrace labels
 * agreement FILE|DIR... [--outcome failure|success] [--json]`: the labels people gave events (the
 * `<trace>.labels.jsonl` sidecars next to the traces) for other tools, and set against otrace's own
 * verdicts (src/analysis/labels/), with the labels a trace records itself (Who&When's mistake step and
 * agent, MAST's failure modes: ./recorded.ts). Traces without labels are skipped; sidecar problems go
 * to stderr.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeIndex, TraceIndex } from '../analysis';
import { judgeLabels, formatAgreement, tallyAgreement, type Judgement } from '../analysis/labels/agreement';
import { openInferenceAnnotations, otelEvaluationLogs, type LabelsOfTrace } from '../analysis/labels/annotations';
import { judgeRecordedLabels, recordedLabelCount } from '../analysis/labels/recorded';
import { sidecarPath } from '../analysis/labels/sidecar';
import { escapeJsonControls } from '../trace/preview';
import { type Command, fail, MAX_MESSAGE, safe, safeJson, safePath, terminalLine } from './common';
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
    // export: only traces with a sidecar are read; agreement reads every trace for the labels it records
    const files = traceFiles(paths).filter((f) => action === 'agreement' || fs.existsSync(sidecarPath(f.file)));
    const noLabels = () => {
      const where = paths.map((p) => safePath(p)).join(', ');
      process.stderr.write(`otrace: ${terminalLine(`no labels found: no trace under ${where} has a .labels.jsonl file next to it${action === 'agreement' ? ' or labels recorded in it (Who&When mistake_step, MAST mast_annotation)' : ''}`)}\n`);
      return 1;
    };
    if (files.length === 0) return noLabels();
    let unattached = 0;
    let invalid = 0;
    let recorded = 0;
    const { results, summary } = forEachTrace(
      files.map((f) => f.file),
      (loaded, name, file) => {
        const side = sidecarOf(file, loaded);
        const own = action === 'agreement' ? recordedLabelCount(loaded.trace.metadata) : 0;
        if (!side && own === 0) return undefined;
        unattached += side?.unattached.length ?? 0;
        invalid += side?.invalid ?? 0;
        const traceId = typeof loaded.trace.trace_id === 'string' ? loaded.trace.trace_id : undefined;
        const of: LabelsOfTrace = { trace: name, traceId, labels: side ? [...side.attached, ...side.unattached.map((u) => ({ record: u.record }))] : [] };
        if (action === 'export') return { of, people: [] as Judgement[], inTrace: [] as Judgement[] };
        const index = new TraceIndex(loaded);
        try {
          const analysis = analyzeIndex(index, { outcome });
          const inTrace = judgeRecordedLabels(analysis, { metadata: loaded.trace.metadata, indexOf: (id) => indexOfId(loaded.trace.events, id) });
          recorded += inTrace.length;
          return { of, people: judgeLabels(analysis, side?.attached ?? []), inTrace };
        } finally {
          index.free();
        }
      },
    );
    const done = results.map((r) => r.result).filter((r) => r !== undefined);
    if (done.length === 0 && summary.unreadable.length === 0) return noLabels();
    const fromSidecars = done.reduce((n, r) => n + r.of.labels.length, 0);
    const count = fromSidecars + recorded;
    const notes = [unattached ? `${unattached} not attached to an event` : '', invalid ? `${invalid} sidecar lines not labels` : ''].filter(Boolean).join(', ');
    if (action === 'export') {
      const body = format === 'otel' ? otelEvaluationLogs(done.map((r) => r.of)) : openInferenceAnnotations(done.map((r) => r.of));
      const text = escapeJsonControls(JSON.stringify(body, null, 2)) + '\n';
      try {
        if (values.output) fs.writeFileSync(values.output, text);
        else process.stdout.write(text);
      } catch (err) {
        fail(`cannot write ${safePath(values.output)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
      }
      process.stderr.write(`otrace: ${terminalLine(`${fromSidecars} labels from ${done.length} traces as ${format === 'otel' ? 'OTel gen_ai.evaluation.result log records' : 'OpenInference span annotations'}${values.output ? ` -> ${safePath(values.output)}` : ''}${notes ? ` (${notes})` : ''}`)}\n`);
      return corpusExit(summary, paths);
    }
    // people's labels and the benchmarks' are two tables: a team's judgement is not a dataset's
    const table = tallyAgreement(done.flatMap((r) => r.people));
    const recordedTable = tallyAgreement(done.flatMap((r) => r.inTrace));
    const each = done.flatMap((r) => [...r.people.map((j) => ({ ...j, source: 'sidecar' })), ...r.inTrace.map((j) => ({ ...j, source: 'recorded' }))].map((j) => ({ trace: r.of.trace, ...j, agree: j.agree ?? null })));
    if (values.json) process.stdout.write(safeJson({ traces: done.length, labels: count, sidecar_labels: fromSidecars, recorded_labels: recorded, unattached, kinds: table, recorded_kinds: recordedTable, judgements: each }) + '\n');
    else {
      const from = [fromSidecars ? `${fromSidecars} people gave (.labels.jsonl)` : '', recorded ? `${recorded} recorded in the traces (Who&When, MAST)` : ''].filter(Boolean).join(', ');
      process.stdout.write(`${terminalLine(`otrace's verdicts against ${count} labels on ${done.length} traces: ${from}${notes ? `; ${notes}` : ''}`)}\n`);
      if (table.length) process.stdout.write(formatAgreement(table) + '\n');
      if (table.length && recordedTable.length) process.stdout.write('\nrecorded in the traces:\n');
      if (recordedTable.length) process.stdout.write(formatAgreement(recordedTable) + '\n');
      process.stdout.write('agreement = agree / (agree + disagree); unknown: otrace gives no verdict there (no run stop, no blame, unsigned credit); notes are not judged\n');
      if (recordedTable.length) process.stdout.write('recorded labels are in-sample for otrace\'s fitted blame; its cross-validated accuracy is in docs/analysis.md\n');
    }
    return corpusExit(summary, paths);
  },
};

/** The index of the first event with id `id`, or undefined. */
function indexOfId(events: readonly { id: string }[], id: string): number | undefined {
  const i = events.findIndex((e) => e.id === id);
  return i === -1 ? undefined : i;
}
