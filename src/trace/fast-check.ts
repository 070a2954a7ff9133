/**
 * A hand-written check of the common event and edge shapes, in front of zod: for a record that is
 * certainly valid it returns what `EventSchema` / `EdgeSchema` would (the same fields, in zod's
 * order: the schema's own fields in schema order, then the unknown fields in input order), at a
 * fraction of zod's cost. For anything else (a bad or unusual field, a `source`, a `__proto__` key)
 * it returns undefined and the caller asks zod, which writes the messages. So this never rejects:
 * it only decides the records it is sure of. test/unit/trace/fast-check.test.ts checks, with
 * fast-check, that it accepts nothing zod rejects and returns the same value as zod.
 *
 * Pure: no `vscode`, no zod.
 */
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, STOP_REASONS, type TraceEdge, type TraceEvent } from './schema';

const EVENT_TYPE_SET: ReadonlySet<unknown> = new Set(EVENT_TYPES);
const EDGE_TYPE_SET: ReadonlySet<unknown> = new Set(EDGE_TYPES);
/** The edge schema's own fields, in its order. */
const EDGE_FIELDS = ['src', 'dst', 'type'] as const;
const STOP_REASON_SET: ReadonlySet<unknown> = new Set(STOP_REASONS);
const KIND_SET: ReadonlySet<unknown> = new Set(EVENT_KINDS);
const CALL_STATUS_SET: ReadonlySet<unknown> = new Set(CALL_STATUSES);

/** How each known event field is checked (`source` is left to zod). */
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
}

/** The event schema's fields in its order (EventObjectSchema in schema.ts), without `source`. */
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
  }
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
  /** A field zod must see (`source`, which the fast path leaves to zod, or `__proto__`). */
  toZod: boolean;
  /** The node one field back (undefined at the root). */
  parent?: Shape;
  /** The nodes one field further. */
  children: Shape[];
  /** Bits of the required fields among the fields so far. */
  required: number;
  /** The fields so far come in zod's output order (schema fields in schema order, then the others). */
  ordered: boolean;
  /** Position of the latest known field so far (-1: none). */
  lastAt: number;
  /** Unknown fields so far. */
  unknown: number;
  /** The fields so far in zod's order (made when first asked, at the shapes that are not ordered). */
  zodKeys?: string[];
}

/** At most this many shapes are kept (a trace of unusual records would make ever new ones); past it, the plain check. */
const MAX_SHAPES = 4096;
/** Different next fields looked at per shape before the plain check (the children are compared one by one). */
const MAX_CHILDREN = 32;
let shapeCount = 0;
const ROOT: Shape = { key: '', at: -1, check: Check.String, toZod: false, children: [], required: 0, ordered: true, lastAt: -1, unknown: 0 };

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
    toZod: key === 'source' || key === '__proto__',
    parent: node,
    children: [],
    required: known && at < 4 ? node.required | (1 << at) : node.required,
    ordered: node.ordered && (!known || (at > node.lastAt && node.unknown === 0)),
    lastAt: known ? at : node.lastAt,
    unknown: known ? node.unknown : node.unknown + 1,
  };
  kids.push(child);
  shapeCount++;
  return child;
}

/** The field names of the path to `node`, in zod's output order: schema fields in schema order, then the others in input order. */
function zodKeysOf(node: Shape): string[] {
  const path: Shape[] = [];
  for (let s: Shape | undefined = node; s !== undefined && s !== ROOT; s = s.parent) path.push(s);
  path.reverse();
  const known = path.filter((s) => s.at !== -1).sort((a, b) => a.at - b.at);
  return [...known, ...path.filter((s) => s.at === -1)].map((s) => s.key);
}

/**
 * The event `EventSchema.safeParse(value)` would return, when `value` is certainly valid (a plain
 * object from JSON.parse whose known fields all have the right type, with a `reason` on a stop and
 * a `value` on a reward, and no `source` or `__proto__` field); undefined otherwise (ask zod).
 * Equal to zod's result field for field and in the same order; `value` itself when its fields are
 * already in that order (so the caller must not mutate `value` afterwards).
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
  // zod returns a copy with its fields in schema order, then the others in input order: a record
  // already in that order (as otrace writes them) is that value; it is used as it is.
  if (node.ordered) return value as TraceEvent;
  const keys = (node.zodKeys ??= zodKeysOf(node));
  const out: Record<string, unknown> = {};
  for (let k = 0; k < keys.length; k++) out[keys[k]] = value[keys[k]];
  return out as TraceEvent;
}

/** {@link fastEvent} without the shape trie (when it is full): each field looked up on its own. */
function plainFastEvent(value: Record<string, unknown>): TraceEvent | undefined {
  let known = 0;
  let unknown = 0;
  let lastAt = -1;
  let seen = 0; // bit k: field k of EVENT_FIELDS is there
  let ordered = true; // fields already in zod's output order
  for (const key in value) {
    const at = EVENT_FIELD_AT.get(key);
    if (at === undefined) {
      if (key === 'source' || key === '__proto__') return undefined;
      unknown++;
    } else {
      if (!passes(EVENT_CHECKS[at], value[key])) return undefined;
      if (at < lastAt || unknown > 0) ordered = false;
      lastAt = at;
      if (at < 4) seen |= 1 << at;
      known++;
    }
  }
  if ((seen & REQUIRED) !== REQUIRED) return undefined;
  if (value.type === 'stop' && value.reason === undefined) return undefined;
  if (value.type === 'reward' && value.value === undefined) return undefined;
  return ordered ? (value as TraceEvent) : inZodOrder(value, known, unknown);
}

/** A copy of a checked event with its `known` schema fields in schema order, then its `unknown` others in input order. */
function inZodOrder(value: Record<string, unknown>, known: number, unknown: number): TraceEvent {
  const out: Record<string, unknown> = {};
  let left = known;
  for (let k = 0; k < EVENT_FIELDS.length && left > 0; k++) {
    const key = EVENT_FIELDS[k][0];
    const v = value[key];
    if (v === undefined) continue;
    out[key] = v;
    left--;
  }
  if (unknown > 0) for (const key in value) if (!EVENT_FIELD_AT.has(key)) out[key] = value[key];
  return out as TraceEvent;
}

/**
 * The edge `EdgeSchema.safeParse(value)` would return when `value` is certainly valid; undefined
 * otherwise (ask zod). `value` itself when its fields already come in zod's order (src, dst, type,
 * then the others), as otrace writes them.
 */
export function fastEdge(value: unknown): TraceEdge | undefined {
  if (!isRecord(value)) return undefined;
  const { src, dst, type } = value;
  if (typeof src !== 'string' || src.length === 0 || typeof dst !== 'string' || dst.length === 0 || !EDGE_TYPE_SET.has(type)) return undefined;
  let k = 0;
  let ordered = true;
  for (const key in value) {
    if (key === '__proto__') return undefined;
    if (k < 3 && key !== EDGE_FIELDS[k]) ordered = false;
    k++;
  }
  if (ordered) return value as TraceEdge;
  const out: Record<string, unknown> = { src, dst, type };
  for (const key in value) if (key !== 'src' && key !== 'dst' && key !== 'type') out[key] = value[key];
  return out as TraceEdge;
}
