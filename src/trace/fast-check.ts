/**
 * A hand-written check of the common event and edge shapes, in front of zod: for a record that is
 * certainly valid it returns the record itself, which has the value `EventSchema` / `EdgeSchema`
 * would return (the same fields and values; zod's copy only puts the schema's fields first, in
 * schema order, and nothing reads an event's fields in order: the writers put them in that order,
 * see {@link ./field-order}; a `source` or `usage` object is checked too, its fields kept as they
 * are). For anything else (a bad or unusual field, a `__proto__` key) it returns undefined and the caller asks zod, which writes the messages. So this never
 * rejects: it only decides the records it is sure of. test/unit/trace/fast-check.test.ts checks,
 * with fast-check, that it accepts nothing zod rejects and returns a value deep-equal to zod's.
 *
 * Pure: no `vscode`; no zod parse (it reads only the token kinds of TokenUsageSchema's shape).
 */
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, STOP_REASONS, TokenUsageSchema, type TraceEdge, type TraceEvent } from './schema';

const EVENT_TYPE_SET: ReadonlySet<unknown> = new Set(EVENT_TYPES);
const EDGE_TYPE_SET: ReadonlySet<unknown> = new Set(EDGE_TYPES);
const STOP_REASON_SET: ReadonlySet<unknown> = new Set(STOP_REASONS);
const KIND_SET: ReadonlySet<unknown> = new Set(EVENT_KINDS);
const CALL_STATUS_SET: ReadonlySet<unknown> = new Set(CALL_STATUSES);

/** A field the fast path leaves to zod: `__proto__` (JSON.parse makes it an own field; an object literal would not). */
const TO_ZOD: ReadonlySet<string> = new Set(['__proto__']);

/** How each known event field is checked. */
const enum Check {
  NonEmptyString,
  String,
  Boolean,
  Number,
  NonNegative,
  Strings,
  EventType,
  StopReason,
  Kind,
  CallStatus,
  /** `source` (SourceRefSchema): an object with a non-empty `path`, `line` and `column` integers from 1 when there. */
  Source,
  /** `usage` (TokenUsageSchema): an object whose token kinds, when there, are non-negative numbers. */
  Usage,
}

/** The event schema's fields (EventObjectSchema in schema.ts): in its order, but `source` and `usage` last (their bits came later). */
const EVENT_FIELDS: readonly (readonly [string, Check])[] = [
  ['id', Check.NonEmptyString],
  ['t', Check.NonNegative],
  ['type', Check.EventType],
  ['agent', Check.NonEmptyString],
  ['role', Check.String],
  ['from', Check.String],
  ['to', Check.String],
  ['tool', Check.String],
  ['content_ref', Check.String],
  ['trusted', Check.Boolean],
  ['content', Check.String],
  ['parent', Check.String],
  ['causes', Check.Strings],
  ['tokens', Check.NonNegative],
  ['cost', Check.NonNegative],
  ['duration_s', Check.NonNegative],
  ['credit', Check.Number],
  ['reason', Check.StopReason],
  ['detail', Check.String],
  ['decided_by', Check.String],
  ['value', Check.Number],
  ['channel', Check.String],
  ['target', Check.String],
  ['kind', Check.Kind],
  ['call_status', Check.CallStatus],
  ['open', Check.Boolean],
  ['trace_id', Check.String],
  ['clock_skew_s', Check.Number],
  ['source', Check.Source],
  ['usage', Check.Usage],
];
/** Field name -> its position in {@link EVENT_FIELDS}. */
const EVENT_FIELD_AT = new Map<string, number>(EVENT_FIELDS.map(([name], k) => [name, k]));
/** The check of each field, by position (a flat array: read per field of every event). */
const EVENT_CHECKS = Int8Array.from(EVENT_FIELDS.map(([, check]) => check));
/** The required fields (id, t, type, agent: positions 0-3) as bits of the mask of those seen. */
const REQUIRED = 0b1111;

function passes(check: Check, v: unknown): boolean {
  switch (check) {
    case Check.NonEmptyString:
      return typeof v === 'string' && v.length > 0;
    case Check.String:
      return typeof v === 'string';
    case Check.Boolean:
      return typeof v === 'boolean';
    case Check.Number:
      return typeof v === 'number' && Number.isFinite(v);
    case Check.NonNegative:
      return typeof v === 'number' && Number.isFinite(v) && v >= 0;
    case Check.Strings:
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
      return true;
    case Check.EventType:
      return EVENT_TYPE_SET.has(v);
    case Check.StopReason:
      return STOP_REASON_SET.has(v);
    case Check.Kind:
      return KIND_SET.has(v);
    case Check.CallStatus:
      return CALL_STATUS_SET.has(v);
    case Check.Source:
      return isSourceRef(v);
    case Check.Usage:
      return isTokenUsage(v);
  }
}

/** The token kinds of TokenUsageSchema (schema.ts), read from the schema: a kind added there is checked here too. */
export const USAGE_KINDS: readonly string[] = Object.keys(TokenUsageSchema.shape);

/** True when `v` passes SourceRefSchema: zod's value is then `v` with its fields in another order. */
function isSourceRef(v: unknown): boolean {
  if (!isRecord(v) || Object.hasOwn(v, '__proto__')) return false;
  const { path, line, column } = v;
  return typeof path === 'string' && path.length > 0 && (line === undefined || isLineNumber(line)) && (column === undefined || isLineNumber(column));
}

function isLineNumber(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
}

/** True when `v` passes TokenUsageSchema (each kind there a finite number from 0; other fields kept as they are). */
function isTokenUsage(v: unknown): boolean {
  if (!isRecord(v) || Object.hasOwn(v, '__proto__')) return false;
  for (let k = 0; k < USAGE_KINDS.length; k++) {
    const n = v[USAGE_KINDS[k]];
    if (n !== undefined && !(typeof n === 'number' && Number.isFinite(n) && n >= 0)) return false;
  }
  return true;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * A sequence of field names as met in records, one node per prefix (a trie): what the checks of
 * {@link fastEvent} need to know of a record's fields in that order is worked out once per
 * sequence, not once per record. Records of one trace come in a few shapes, so a record costs one
 * comparison of each field name with its node's (the names JSON.parse gives are interned, so
 * comparing them is comparing pointers).
 */
interface Shape {
  /** The field name leading to this node ('' at the root). */
  key: string;
  /** Its position in {@link EVENT_FIELDS}, or -1 for an unknown field. */
  at: number;
  /** Its check, for a known field. */
  check: Check;
  /** A field zod must see (`__proto__`). */
  toZod: boolean;
  /** The node one field back (undefined at the root). */
  parent?: Shape;
  /** The nodes one field further. */
  children: Shape[];
  /** Bits of the required fields among the fields so far. */
  required: number;
}

/** At most this many shapes are kept (a trace of unusual records would make ever new ones); past it, the plain check. */
const MAX_SHAPES = 4096;
/** Different next fields looked at per shape before the plain check (the children are compared one by one). */
const MAX_CHILDREN = 32;
let shapeCount = 0;
const ROOT: Shape = { key: '', at: -1, check: Check.String, toZod: false, children: [], required: 0 };

/** The node one field (`key`) further than `node`, made when new; undefined when the trie is full. */
function nextShape(node: Shape, key: string): Shape | undefined {
  const kids = node.children;
  for (let c = 0; c < kids.length; c++) if (kids[c].key === key) return kids[c];
  if (shapeCount >= MAX_SHAPES || kids.length >= MAX_CHILDREN) return undefined;
  const at = EVENT_FIELD_AT.get(key) ?? -1;
  const known = at !== -1;
  const child: Shape = {
    key,
    at,
    check: known ? EVENT_CHECKS[at] : Check.String,
    toZod: TO_ZOD.has(key),
    parent: node,
    children: [],
    required: known && at < 4 ? node.required | (1 << at) : node.required,
  };
  kids.push(child);
  shapeCount++;
  return child;
}

/**
 * The event `EventSchema.safeParse(value)` would return, when `value` is certainly valid (a plain
 * object from JSON.parse whose known fields all have the right type, with a `reason` on a stop and
 * a `value` on a reward, a `source` and `usage` as their schemas want, and no `__proto__` field); undefined otherwise (ask zod).
 * Returns `value` itself, deep-equal to zod's result (so the caller must not mutate `value` afterwards).
 */
export function fastEvent(value: unknown): TraceEvent | undefined {
  if (!isRecord(value)) return undefined;
  let node = ROOT;
  for (const key in value) {
    const next = nextShape(node, key);
    if (next === undefined) return plainFastEvent(value);
    if (next.toZod) return undefined;
    if (next.at !== -1 && !passes(next.check, value[key])) return undefined;
    node = next;
  }
  if ((node.required & REQUIRED) !== REQUIRED) return undefined;
  if (value.type === 'stop' && value.reason === undefined) return undefined;
  if (value.type === 'reward' && value.value === undefined) return undefined;
  // zod would return a copy with the schema's fields first: the same value, so `value` is used as
  // it is (a copy per record out of order was 65 MB at 1M events).
  return value as TraceEvent;
}

/** The event fields {@link fastEventFields} writes, by position (its bit k and `fields[k]` are the field named here at k). */
export const EVENT_FIELD_NAMES: readonly string[] = EVENT_FIELDS.map(([name]) => name);
/** Positions in {@link EVENT_FIELD_NAMES} of the fields the stop and reward checks read. */
const TYPE_AT = EVENT_FIELD_AT.get('type')!;
const REASON_AT = EVENT_FIELD_AT.get('reason')!;
const VALUE_AT = EVENT_FIELD_AT.get('value')!;

/**
 * {@link fastEvent} for a reader that keeps fields, not the record (src/trace/columns): the same
 * verdict, and the known fields of a record it is sure of written into `fields` by their position
 * in {@link EVENT_FIELD_NAMES} (a list reused from record to record: no object per record; the
 * entries of absent fields are left as they were).
 * @returns a bit mask of the known fields the record has (bit k: `EVENT_FIELD_NAMES[k]`, whose
 *   value is then `fields[k]`), or -1 when `fastEvent(value)` would be undefined (ask zod).
 */
export function fastEventFields(value: unknown, fields: unknown[]): number {
  if (!isRecord(value)) return -1;
  let node = ROOT;
  let mask = 0;
  for (const key in value) {
    const next = nextShape(node, key);
    if (next === undefined) return plainFastEventFields(value, fields);
    if (next.toZod) return -1;
    const at = next.at;
    if (at !== -1) {
      const v = value[key];
      if (!passes(next.check, v)) return -1;
      fields[at] = v;
      mask |= 1 << at;
    }
    node = next;
  }
  return fieldsVerdict(mask, fields);
}

/** {@link fastEventFields} without the shape trie (when it is full). */
function plainFastEventFields(value: Record<string, unknown>, fields: unknown[]): number {
  let mask = 0;
  for (const key in value) {
    const at = EVENT_FIELD_AT.get(key);
    if (at === undefined) {
      if (TO_ZOD.has(key)) return -1;
    } else {
      const v = value[key];
      if (!passes(EVENT_CHECKS[at], v)) return -1;
      fields[at] = v;
      mask |= 1 << at;
    }
  }
  return fieldsVerdict(mask, fields);
}

/**
 * How each field of {@link EVENT_FIELD_NAMES} is checked, by position, for a reader of the record's
 * bytes (src/trace/columns/record-scanner.ts) that must accept what {@link fastEventFields} accepts.
 */
export type EventFieldCheck = 'non-empty string' | 'string' | 'boolean' | 'number' | 'non-negative' | 'strings' | 'event type' | 'stop reason' | 'kind' | 'call status' | 'source' | 'usage';
const CHECK_NAMES: readonly EventFieldCheck[] = ['non-empty string', 'string', 'boolean', 'number', 'non-negative', 'strings', 'event type', 'stop reason', 'kind', 'call status', 'source', 'usage'];
/** The check of each field of {@link EVENT_FIELD_NAMES}, by position. */
export const EVENT_FIELD_CHECKS: readonly EventFieldCheck[] = EVENT_FIELDS.map(([, check]) => CHECK_NAMES[check]);
/** The fields {@link fastEventFields} leaves to zod when a record has them (`__proto__`). */
export const EVENT_FIELDS_TO_ZOD: ReadonlySet<string> = TO_ZOD;

/**
 * The verdict of {@link fastEventFields} once a record's known fields are in `fields` (bit k of
 * `mask`: field k is there): `mask`, or -1 when they lack a required one (id, t, type, agent), a
 * stop's reason or a reward's value.
 */
export function eventFieldsVerdict(mask: number, fields: readonly unknown[]): number {
  return fieldsVerdict(mask, fields);
}

/** `mask`, or -1 when the fields it marks lack a required one, a stop's reason or a reward's value. */
function fieldsVerdict(mask: number, fields: readonly unknown[]): number {
  if ((mask & REQUIRED) !== REQUIRED) return -1;
  const type = fields[TYPE_AT];
  if (type === 'stop' && (mask & (1 << REASON_AT)) === 0) return -1;
  if (type === 'reward' && (mask & (1 << VALUE_AT)) === 0) return -1;
  return mask;
}

/** {@link fastEvent} without the shape trie (when it is full): each field looked up on its own. */
function plainFastEvent(value: Record<string, unknown>): TraceEvent | undefined {
  let seen = 0; // bit k: field k of EVENT_FIELDS is there
  for (const key in value) {
    const at = EVENT_FIELD_AT.get(key);
    if (at === undefined) {
      if (TO_ZOD.has(key)) return undefined;
    } else {
      if (!passes(EVENT_CHECKS[at], value[key])) return undefined;
      if (at < 4) seen |= 1 << at;
    }
  }
  if ((seen & REQUIRED) !== REQUIRED) return undefined;
  if (value.type === 'stop' && value.reason === undefined) return undefined;
  if (value.type === 'reward' && value.value === undefined) return undefined;
  return value as TraceEvent;
}

/**
 * The edge `EdgeSchema.safeParse(value)` would return when `value` is certainly valid: `value`
 * itself (deep-equal to zod's copy); undefined otherwise (ask zod).
 */
export function fastEdge(value: unknown): TraceEdge | undefined {
  if (!isRecord(value)) return undefined;
  const { src, dst, type } = value;
  if (typeof src !== 'string' || src.length === 0 || typeof dst !== 'string' || dst.length === 0 || !EDGE_TYPE_SET.has(type)) return undefined;
  for (const key in value) if (key === '__proto__') return undefined;
  return value as TraceEdge;
}
