/**
 * Readers for otrace's own formats:
 * - a JSON document in the survey's shape (`{ trace_id, ..., events: [...], edges: [...] }`), and
 * - JSONL: an optional first line with the trace fields, then one event per line; a line
 *   `{"edge": {...}}` adds an edge; a later line with trace fields (no `type`) updates them.
 * Every event and edge keeps the range it came from; problems come back positioned, and the rest
 * of the trace still loads (a cut-off last line loses only that line).
 */
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { checkTrace } from './check';
import { forEachJsonlRecord } from './jsonl';
import { preview } from './preview';
import { valueOf } from './json-positions';
import { LineIndex, type LoadedTrace, type Origin, type Problem, type Range } from './model';
import {
  EdgeSchema,
  EventSchema,
  SURVEY_EVENT_TYPES,
  TraceHeaderSchema,
  type TraceEdge,
  type TraceEvent,
  type TraceHeader,
} from './schema';

type Path = (string | number)[];

/** A record (an event, an edge, the header) and how to find the range of any of its fields. */
interface RecordSpan {
  origin: Origin;
  /** Range of the value at `path` inside the record, or the record's start if it is absent. */
  locate(path: Path): Range;
}

const PARSE_OPTIONS = { disallowComments: true, allowTrailingComma: false } as const;

/** Reads a trace written as one JSON document. Never throws: problems are returned. */
export function readTraceJson(text: string): LoadedTrace {
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  // A document cut off mid-write makes the parser report one error per open bracket at the end:
  // report the cut once, and leave out the record it cut through.
  const end = text.trimEnd().length;
  const cutOff = errors.some((e) => e.offset >= end);
  for (const e of errors) {
    if (cutOff && e.offset + Math.max(e.length, 1) >= end) continue;
    problems.push({
      severity: 'error',
      message: `JSON syntax error: ${describeParseError(e)}`,
      range: lines.range(e.offset, Math.max(e.length, 1)),
    });
  }
  if (cutOff) {
    problems.push({
      severity: 'error',
      message: 'the document is cut off (unexpected end of file); the complete records before it loaded',
      range: lines.range(Math.max(end - 1, 0), 1),
    });
  }
  const spanOf = (node: Node, record: number): RecordSpan => ({
    origin: { range: lines.range(node.offset, node.length), record },
    locate(path) {
      const found = findNodeAtLocation(node, path);
      return found ? lines.range(found.offset, found.length) : lines.range(node.offset, 1);
    },
  });
  const builder = new TraceBuilder(problems);
  if (!root || root.type !== 'object') {
    if (root) problems.push({ severity: 'error', message: 'a trace must be a JSON object', range: lines.range(root.offset, 1) });
    return builder.finish('otrace-json');
  }
  const header: Record<string, unknown> = {};
  let sawEvents = false;
  for (const prop of root.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = keyNode.value as string;
    if (key === 'events' || key === 'edges') {
      if (valueNode.type !== 'array') {
        problems.push({ severity: 'error', message: `"${key}" must be an array`, range: lines.range(valueNode.offset, valueNode.length) });
        continue;
      }
      if (key === 'events') sawEvents = true;
      (valueNode.children ?? []).forEach((item, i) => {
        if (cutOff && item.offset + item.length >= end) return;
        const span = spanOf(item, i);
        if (key === 'events') builder.addEvent(valueOf(item), span);
        else builder.addEdge(valueOf(item), span);
      });
    } else {
      header[key] = valueOf(valueNode);
    }
  }
  if (!sawEvents && !cutOff) problems.push({ severity: 'error', message: 'a trace needs an "events" array', range: lines.range(root.offset, 1) });
  builder.setHeader(header, spanOf(root, 0), false);
  return builder.finish(isSurveyShaped(header, builder) ? 'survey-json' : 'otrace-json');
}

/** Reads a trace written as JSONL (one record per line). Never throws: problems are returned. */
export function readTraceJsonl(text: string): LoadedTrace {
  const builder = new TraceBuilder([]);
  let seenRecord = false;
  const { problems } = forEachJsonlRecord(text, ({ line: n, start, length, value }) => {
    const lineRange: Range = { start: { line: n, character: 0 }, end: { line: n, character: length } };
    const span: RecordSpan = {
      origin: { range: lineRange, record: n },
      locate(path) {
        const node = parseTree(text.slice(start, start + length), [], PARSE_OPTIONS);
        const found = node && findNodeAtLocation(node, path);
        return found
          ? { start: { line: n, character: found.offset }, end: { line: n, character: found.offset + found.length } }
          : { start: { line: n, character: 0 }, end: { line: n, character: 1 } };
      },
    };
    try {
      if ('edge' in value && !('type' in value)) {
        builder.addEdge(value.edge, { origin: span.origin, locate: (path) => span.locate(['edge', ...path]) });
      } else if (!('type' in value) && !('id' in value)) {
        builder.setHeader(value, span, seenRecord);
      } else {
        builder.addEvent(value, span);
      }
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      builder.problem({ severity: 'error', message: 'this line is nested too deeply to check; line skipped', range: lineRange });
    }
    seenRecord = true;
  });
  for (const p of problems) builder.problem(p);
  return builder.finish('otrace-jsonl');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeParseError(e: ParseError): string {
  const words = printParseErrorCode(e.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words;
}

/** A JSON document the survey's own schema would accept the shape of (its required keys, its event types). */
function isSurveyShaped(header: Record<string, unknown>, builder: TraceBuilder): boolean {
  const required = ['trace_id', 'task_id', 'rewards', 'costs'];
  const survey = new Set<string>(SURVEY_EVENT_TYPES);
  return required.every((k) => k in header) && builder.events.every((e) => survey.has(e.type));
}

/** Collects validated records, reports schema problems at their fields, and runs the cross-record checks. */
class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private readonly eventSpans: RecordSpan[] = [];
  private readonly edges: TraceEdge[] = [];
  private readonly edgeSpans: RecordSpan[] = [];
  private header: TraceHeader = {};

  constructor(private readonly problems: Problem[]) {}

  addEvent(value: unknown, span: RecordSpan): void {
    const event = this.validate(EventSchema, value, span, 'event', ['id', 't', 'type', 'agent']);
    if (event) {
      this.events.push(event as TraceEvent);
      this.eventSpans.push(span);
    }
  }

  addEdge(value: unknown, span: RecordSpan): void {
    const edge = this.validate(EdgeSchema, value, span, 'edge', ['src', 'dst', 'type']);
    if (edge) {
      this.edges.push(edge);
      this.edgeSpans.push(span);
    }
  }

  /** Sets (or, for a later JSONL line, updates) the trace fields. */
  /** Adds a problem found outside the records' own checks. */
  problem(p: Problem): void {
    this.problems.push(p);
  }

  setHeader(value: Record<string, unknown>, span: RecordSpan, update: boolean): void {
    const header = this.validate(TraceHeaderSchema, value, span, 'trace fields');
    if (!header) return;
    // A trace-fields line naming another trace after events were read starts a new trace of the file.
    if (update && header.trace_id !== undefined && this.header.trace_id !== undefined && header.trace_id !== this.header.trace_id && this.events.length > this.traceStart) {
      this.startTrace(header, span);
      return;
    }
    this.header = update ? { ...this.header, ...header } : header;
    if (this.headers.length) this.headers[this.headers.length - 1] = this.header;
  }

  /** Trace fields of each trace of the file, in order, when the file holds several (JSONL). */
  private readonly headers: TraceHeader[] = [];
  /** Index of the first event of the current trace. */
  private traceStart = 0;
  /** Where the file's second trace starts (for the "several traces" info). */
  private secondTrace?: Range;

  private startTrace(header: TraceHeader, span: RecordSpan): void {
    if (!this.headers.length) {
      this.headers.push(this.header);
      this.secondTrace = span.origin.range;
    }
    if (this.headers.some((h) => h.trace_id === header.trace_id)) {
      this.problems.push({ severity: 'warning', message: `trace ${preview(header.trace_id!)} starts again here; its events join the earlier part of that trace`, range: span.origin.range });
    }
    this.tagTrace();
    this.headers.push(header);
    this.header = header;
  }

  /** Names the current trace on the events read since it started (unless an event names its own). */
  private tagTrace(): void {
    if (!this.headers.length) return;
    const id = this.header.trace_id!;
    for (let i = this.traceStart; i < this.events.length; i++) if (this.events[i].trace_id === undefined) this.events[i] = { ...this.events[i], trace_id: id };
    this.traceStart = this.events.length;
  }

  finish(format: string): LoadedTrace {
    let traceHeaders: Record<string, TraceHeader> | undefined;
    if (this.headers.length > 1) {
      this.tagTrace();
      traceHeaders = {};
      for (const h of this.headers) traceHeaders[h.trace_id!] = { ...traceHeaders[h.trace_id!], ...h };
      this.header = this.headers[0];
      const ids = Object.keys(traceHeaders);
      this.problems.push({ severity: 'info', message: `${ids.length} traces in this file (${ids.slice(0, 5).map((id) => preview(id)).join(', ')}${ids.length > 5 ? ', ...' : ''}); one graph with a lane group per trace; each trace is analysed on its own`, range: this.secondTrace! });
    }
    checkTrace(this.events, this.edges, (kind, i, path) => (kind === 'event' ? this.eventSpans : this.edgeSpans)[i].locate(path), this.problems);
    this.problems.sort(byPosition);
    if (this.events.length === 0 && !this.problems.some((p) => p.severity === 'error')) {
      this.problems.push({ severity: 'warning', message: 'the trace has no events', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } });
    }
    return {
      format,
      trace: { ...this.header, events: this.events, edges: this.edges },
      eventOrigins: this.eventSpans.map((s) => s.origin),
      edgeOrigins: this.edgeSpans.map((s) => s.origin),
      problems: this.problems,
      ...(traceHeaders ? { traceHeaders } : {}),
    };
  }

  /**
   * Parses `value`; reports each issue at the field it concerns. When only optional fields are bad,
   * the record still loads without them (a stop without a valid reason gets `unknown`): one bad
   * field must not hide a whole event. Returns undefined when a required field is bad.
   */
  private validate<T>(schema: z.ZodType<T>, value: unknown, span: RecordSpan, what: string, required: readonly string[] = []): T | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const paths = result.error.issues.map((issue) => issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
    const badFields = new Set(paths.map((p) => String(p[0] ?? '')));
    let salvaged: T | undefined;
    if (isPlainObject(value) && !badFields.has('') && ![...badFields].some((f) => required.includes(f))) {
      const rest: Record<string, unknown> = { ...value };
      for (const f of badFields) delete rest[f];
      if (rest.type === 'stop' && rest.reason === undefined) rest.reason = 'unknown';
      const again = schema.safeParse(rest);
      if (again.success) salvaged = again.data;
    }
    const id = isPlainObject(value) && typeof value.id === 'string' ? ` ${preview(value.id)}` : '';
    result.error.issues.forEach((issue, k) => {
      this.problems.push({
        severity: 'error',
        message: `${what}${id}: ${describeIssue(value, paths[k], issue)}${salvaged ? salvageNote(value, paths[k]) : what === 'trace fields' ? '' : `; the ${what} is skipped`}`,
        range: span.locate(paths[k]),
      });
    });
    return salvaged;
  }
}

/** What happened to a bad optional field of a record that still loads. */
function salvageNote(value: unknown, path: Path): string {
  const field = String(path[0]);
  if (field === 'reason' && isPlainObject(value) && value.type === 'stop') return '; the stop loads with reason "unknown"';
  return '; the field is ignored, the rest of the record loads';
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Orders problems by where they start in the file. */
export function byPosition(a: Problem, b: Problem): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

function describeIssue(value: unknown, path: Path, issue: z.core.$ZodIssue): string {
  const field = path.map(String).join('.');
  let v: unknown = value;
  for (const p of path) v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[p] : undefined;
  if (v === undefined && path.length > 0) return `missing required field "${field}"`;
  if (field === 'type' && issue.code === 'invalid_value') {
    return `unknown type ${preview(v)} (expected one of: ${issue.values.join(', ')})`;
  }
  if (issue.code === 'invalid_value') return `"${field}" is ${preview(v)}; expected one of: ${issue.values.join(', ')}`;
  if (issue.code === 'too_small' && typeof v === 'string') return `"${field}" must not be empty`;
  if (issue.code === 'too_small') return `"${field}" must be >= ${issue.minimum}, not ${preview(v)}`;
  if (issue.code === 'invalid_type') return `${field ? `"${field}" ` : ''}must be ${article(issue.expected)}, not ${preview(v)}`;
  return field ? `"${field}": ${issue.message}` : issue.message;
}

