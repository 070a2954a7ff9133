/**
 * People's labels for other tools (`otrace labels export --format openinference|otel`):
 * - OpenInference / Arize Phoenix span annotations: the body of `POST /v1/span_annotations`,
 *   `{ data: [{ span_id, name, annotator_kind: "HUMAN", result: { label, explanation }, metadata,
 *   identifier }] }` (Phoenix docs, "Capture feedback": name, annotator_kind HUMAN|LLM|CODE, result
 *   with at least one of label, score, explanation).
 * - OpenTelemetry GenAI `gen_ai.evaluation.result` events as OTLP/JSON log records (semantic-
 *   conventions-genai model/gen-ai/events.yaml: `gen_ai.evaluation.name` required,
 *   `gen_ai.evaluation.score.label` when applicable, `gen_ai.evaluation.explanation` recommended;
 *   parented to the evaluated span when its id is known).
 * No score is invented: a label is a category. The span id is the event's when the trace came from
 * spans (16 hex digits, with otrace's `.return`/`.result`/`.stop` suffix removed); otherwise there
 * is none, and the annotation names the event (`metadata.otrace.event`). Pure.
 */
import type { AttachedLabel } from './attach';
import type { LabelRecord } from './sidecar';

/** One trace's labels to export: the trace's name (as given), its trace id if it has one, and the labels. */
export interface LabelsOfTrace {
  trace: string;
  traceId?: string;
  labels: readonly (AttachedLabel | { record: LabelRecord; index?: undefined })[];
}

/** The evaluation name and label of a label record (a finding's verdict is named by the finding's kind). */
export function evaluationOf(r: LabelRecord): { name: string; label: string } {
  if (r.label === 'accept_finding' || r.label === 'reject_finding') return { name: `otrace.finding.${r.finding?.kind ?? 'unknown'}`, label: r.label === 'accept_finding' ? 'accepted' : 'rejected' };
  return { name: `otrace.${r.label}`, label: r.label };
}

/** The OTel span id an event id carries (16 hex digits, otrace's suffixes removed), or undefined. */
export function spanIdOf(eventId: string): string | undefined {
  const m = /^([0-9a-f]{16})(?:\.(?:return|result|stop))?$/i.exec(eventId);
  return m ? m[1].toLowerCase() : undefined;
}

/** A trace id when it is an OTel one (32 hex digits). */
function otelTraceId(id: string | undefined): string | undefined {
  return id && /^[0-9a-f]{32}$/i.test(id) ? id.toLowerCase() : undefined;
}

/** Phoenix's span annotations request body for the labels of some traces. */
export function openInferenceAnnotations(traces: readonly LabelsOfTrace[]): { data: Record<string, unknown>[] } {
  const data: Record<string, unknown>[] = [];
  for (const t of traces) {
    for (const l of t.labels) {
      const r = l.record;
      const { name, label } = evaluationOf(r);
      const span = spanIdOf(r.event);
      data.push({
        ...(span ? { span_id: span } : {}),
        name,
        annotator_kind: 'HUMAN',
        result: { label, ...(r.note ? { explanation: r.note } : {}) },
        metadata: { otrace: { trace: t.trace, event: r.event, attached: l.index !== undefined, ...(r.finding ? { finding: r.finding } : {}), position: r.position }, author: r.author, time: r.time },
        identifier: `${r.author}:${r.time}:${r.event}:${r.label}`,
      });
    }
  }
  return { data };
}

/** OTLP/JSON logs (`{ resourceLogs }`) with one `gen_ai.evaluation.result` record per label. */
export function otelEvaluationLogs(traces: readonly LabelsOfTrace[]): { resourceLogs: unknown[] } {
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const logRecords: unknown[] = [];
  for (const t of traces) {
    const traceId = otelTraceId(t.traceId);
    for (const l of t.labels) {
      const r = l.record;
      const { name, label } = evaluationOf(r);
      const span = spanIdOf(r.event);
      const attributes = [str('gen_ai.evaluation.name', name), str('gen_ai.evaluation.score.label', label)];
      if (r.note) attributes.push(str('gen_ai.evaluation.explanation', r.note));
      attributes.push(str('otrace.trace', t.trace), str('otrace.event.id', r.event), str('otrace.label.author', r.author));
      const ns = `${BigInt(Date.parse(r.time)) * 1_000_000n}`;
      logRecords.push({ timeUnixNano: ns, observedTimeUnixNano: ns, eventName: 'gen_ai.evaluation.result', severityNumber: 9, severityText: 'INFO', ...(traceId && span ? { traceId, spanId: span } : {}), attributes, body: { stringValue: `${name}: ${label}` } });
    }
  }
  return { resourceLogs: [{ resource: { attributes: [str('service.name', 'otrace')] }, scopeLogs: [{ scope: { name: 'otrace.labels' }, logRecords }] }] };
}
