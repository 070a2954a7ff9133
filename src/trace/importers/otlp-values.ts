/**
 * Values as OTLP/JSON writes them (opentelemetry-proto, "JSON Protobuf Encoding": int64 as strings,
 * hex ids, `AnyValue` objects, attributes as `{key, value}` lists) and as the OpenTelemetry JS SDK
 * serializes them (HrTime `[seconds, nanoseconds]`, plain-object attributes), read into JS values.
 * Shared by the span reader (./otel.ts) and the log-record reader (./otel-logs.ts).
 */
import { normalizeSpanId } from '../span-tree';
import { str } from './span-import';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An id field as normalized hex (see {@link normalizeSpanId}), or undefined when absent or empty. */
export function idOf(v: unknown): string | undefined {
  const s = str(v);
  return s ? normalizeSpanId(s) : undefined;
}

/** An SDK HrTime `[seconds, nanoseconds]` as ns since the epoch, else what {@link nanos} reads. */
export function hrNanos(v: unknown): bigint | undefined {
  if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) return BigInt(v[0]) * 1_000_000_000n + BigInt(v[1]);
  return nanos(v);
}

/** OTLP attributes (KeyValue list, or a plain object) as a plain object of JS values. */
export function attributes(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(raw)) {
    for (const kv of raw) if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  } else if (isObject(raw)) {
    Object.assign(out, raw);
  }
  return out;
}

/**
 * An OTLP AnyValue as a JS value, in camelCase or snake_case: string, bool, int (a string in
 * OTLP/JSON: read as a number when it is a safe integer, else kept as its string), double, bytes
 * (kept as written, base64), array, kvlist. A plain JSON value is kept as it is.
 */
export function anyValue(v: unknown): unknown {
  if (!isObject(v)) return v;
  const pick = (camel: string, snake: string): [boolean, unknown] => (camel in v ? [true, v[camel]] : snake in v ? [true, v[snake]] : [false, undefined]);
  let [has, x] = pick('stringValue', 'string_value');
  if (has) return x;
  [has, x] = pick('boolValue', 'bool_value');
  if (has) return x;
  [has, x] = pick('intValue', 'int_value');
  if (has) {
    const n = Number(x);
    return Number.isSafeInteger(n) ? n : x;
  }
  [has, x] = pick('doubleValue', 'double_value');
  if (has) return typeof x === 'string' && /^(NaN|-?Infinity)$/.test(x) ? x : Number(x);
  [has, x] = pick('arrayValue', 'array_value');
  if (has) return isObject(x) && Array.isArray(x.values) ? x.values.map(anyValue) : [];
  [has, x] = pick('kvlistValue', 'kvlist_value');
  if (has) return isObject(x) ? attributes(x.values) : {};
  [has, x] = pick('bytesValue', 'bytes_value');
  if (has) return x;
  return undefined;
}

/** Nanoseconds since the epoch from a string/number of nanoseconds, or an ISO date string. */
export function nanos(v: unknown): bigint | undefined {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v));
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return BigInt(ms) * 1_000_000n;
  }
  return undefined;
}
