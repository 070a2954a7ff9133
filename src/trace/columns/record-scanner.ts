/**
 * An otrace JSONL line read from its bytes into the fields the column store keeps, without
 * JSON.parse and without an object per record ({@link RecordScanner}): JSON.parse of a record makes
 * its object (and a string per value) only for the columns to drop it; at 1M events that was about
 * 60% of the column read.
 *
 * It takes a line only when it is sure of it: a JSON object whose known event fields all pass the
 * fast check (src/trace/fast-check.ts `fastEventFields`, whose table of fields and checks it reads),
 * or an edge line (`{"edge": {...}}` passing `fastEdge`). Anything else (a nested `source` or
 * `usage`, a repeated known field, an escaped key, a raw control byte, a number or string JSON
 * forbids, a value nested deeper than {@link MAX_DEPTH}) it declines, and the line is parsed by
 * JSON.parse as before: declining is always correct, so the scanner need not know all of JSON,
 * only never take a line JSON.parse would read otherwise. test/unit/trace/columns/record-scanner.test.ts
 * checks that against JSON.parse and the fast check on generated lines.
 *
 * Pure: bytes in, fields out; no `vscode`, no I/O.
 */
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, STOP_REASONS, type EdgeType, type TraceEdge } from '../schema';
import { DECLINED, SCANNED_EDGE, type RecordScan } from '../read';
import { EVENT_FIELD_CHECKS, EVENT_FIELD_NAMES, EVENT_FIELDS_TO_ZOD, eventFieldsVerdict, USAGE_KINDS, type EventFieldCheck } from '../fast-check';


/** Nesting of an unknown field's value the scanner walks through; deeper, it declines. */
const MAX_DEPTH = 32;

/** Powers of ten a double holds exactly (10^0 .. 10^22): a decimal of at most 15 digits over one of them is correctly rounded (Clinger's fast path). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** A name known in advance, as bytes, and what it stands for. */
interface Known<T> {
  bytes: Uint8Array;
  value: T;
}

/** Names by byte length, to find one without making a string of the bytes. */
type KnownNames<T> = (Known<T>[] | undefined)[];

function knownNames<T>(entries: readonly (readonly [string, T])[]): KnownNames<T> {
  const out: KnownNames<T> = [];
  for (const [name, value] of entries) {
    const bytes = Buffer.from(name, 'utf8');
    (out[bytes.length] ??= []).push({ bytes, value });
  }
  return out;
}

/** The entry of `names` spelled by bytes [a, b) of `buf`, or undefined. */
function lookUp<T>(names: KnownNames<T>, buf: Buffer, a: number, b: number): T | undefined {
  const list = names[b - a];
  if (list === undefined) return undefined;
  for (let k = 0; k < list.length; k++) {
    const bytes = list[k].bytes;
    let j = 0;
    while (j < bytes.length && buf[a + j] === bytes[j]) j++;
    if (j === bytes.length) return list[k].value;
  }
  return undefined;
}

/** A top-level key: a field position (≥ 0), or one of these. */
const UNKNOWN_KEY = -1;
const TO_ZOD_KEY = -2;
const EDGE_KEY = -3;
/** What {@link RecordScanner.memberKey} gives for bytes that are no member's key and colon. */
const NO_KEY = -4;
const TOP_KEYS = knownNames<number>([
  ...EVENT_FIELD_NAMES.map((name, k) => [name, k] as const),
  ...[...EVENT_FIELDS_TO_ZOD].map((name) => [name, TO_ZOD_KEY] as const),
  ['edge', EDGE_KEY],
]);
/** The keys of a `source` object (path 0, line 1, column 2) and of a `usage` object (its token kinds), `__proto__` (left to zod) -2. */
const SOURCE_KEYS = knownNames<number>([
  ['path', 0],
  ['line', 1],
  ['column', 2],
  ['__proto__', TO_ZOD_KEY],
]);
const USAGE_KEYS = knownNames<number>([...USAGE_KINDS.map((kind, k) => [kind, k] as const), ['__proto__', TO_ZOD_KEY] as const]);

/** The keys of an edge object: src 0, dst 1, type 2, `__proto__` (left to zod) -2. */
const EDGE_KEYS = knownNames<number>([
  ['src', 0],
  ['dst', 1],
  ['type', 2],
  ['__proto__', TO_ZOD_KEY],
]);
/** Each enum's values as bytes -> the schema's own string (no string made per record). */
const enumNames = (values: readonly string[]) => knownNames<string>(values.map((v) => [v, v] as const));
const EVENT_TYPE_NAMES = enumNames(EVENT_TYPES);
const STOP_REASON_NAMES = enumNames(STOP_REASONS);
const KIND_NAMES = enumNames(EVENT_KINDS);
const CALL_STATUS_NAMES = enumNames(CALL_STATUSES);
const EDGE_TYPE_NAMES = knownNames<EdgeType>(EDGE_TYPES.map((v) => [v, v] as const));
const ENUM_NAMES: Partial<Record<EventFieldCheck, KnownNames<string>>> = {
  'event type': EVENT_TYPE_NAMES,
  'stop reason': STOP_REASON_NAMES,
  kind: KIND_NAMES,
  'call status': CALL_STATUS_NAMES,
};

/** How the scanner reads each known field (by position): the fast check's check, and whether the value is kept. */
const enum Read {
  /** A string made (id, agent, tool, ...); non-empty when the check says so. */
  Text,
  NonEmptyText,
  /** A string checked, not made (content_ref, detail, decided_by, channel, target: the columns do not keep them). */
  CheckedText,
  /** The content: its UTF-16 length only. */
  Content,
  Enum,
  Boolean,
  Number,
  NonNegative,
  Strings,
  /** `source` and `usage`: objects checked as their schemas check them, not made (the columns keep neither). */
  Source,
  Usage,
}
const CONTENT_AT = EVENT_FIELD_NAMES.indexOf('content');
/** The string fields the columns keep (src/trace/columns/event-columns.ts); the other strings are only checked. */
const MADE = new Set(['id', 'agent', 'trace_id', 'parent', 'tool', 'from', 'to', 'role']);
const READS = Int8Array.from(
  EVENT_FIELD_CHECKS.map((check, k): Read => {
    if (k === CONTENT_AT) return Read.Content;
    switch (check) {
      case 'non-empty string':
        return Read.NonEmptyText;
      case 'string':
        return MADE.has(EVENT_FIELD_NAMES[k]) ? Read.Text : Read.CheckedText;
      case 'boolean':
        return Read.Boolean;
      case 'number':
        return Read.Number;
      case 'non-negative':
        return Read.NonNegative;
      case 'strings':
        return Read.Strings;
      case 'source':
        return Read.Source;
      case 'usage':
        return Read.Usage;
      default:
        return Read.Enum;
    }
  }),
);
const ENUMS: (KnownNames<string> | undefined)[] = EVENT_FIELD_CHECKS.map((check) => ENUM_NAMES[check]);

/**
 * 4 bytes at a time: true when a byte of the word may be a quote, a backslash or below 0x20 (Bit
 * Twiddling Hacks, "hasless(x, n)" and "haszero(x ^ c)": no false negative; a false positive only
 * sends the word to the byte-by-byte test).
 */
function hasSpecialByte(w: number): boolean {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  return ((((w - 0x20202020) & ~w) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080) !== 0;
}

/** Buffer's own decoders without `toString`'s argument handling (one call per kept string of 1M records). */
export const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Buffer, a: number, b: number) => string }).latin1Slice ?? function (this: Buffer, a: number, b: number) {
  return this.toString('latin1', a, b);
};
export const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: (this: Buffer, a: number, b: number) => string }).utf8Slice ?? function (this: Buffer, a: number, b: number) {
  return this.toString('utf8', a, b);
};

/**
 * Reads otrace JSONL lines from bytes (see the file comment). Give it each run of lines with
 * {@link startRun}, then each line with {@link scan}: an event's fields are then in {@link fields}
 * (by position in EVENT_FIELD_NAMES, the bits of the mask it returns; `content` as its length in
 * {@link contentChars}), an edge's in {@link edge}, until the next scan.
 */
export class RecordScanner implements RecordScan {
  /** The scanned event's known fields, by position in EVENT_FIELD_NAMES (entries not in the mask are stale). */
  readonly fields: unknown[] = EVENT_FIELD_NAMES.map(() => undefined);
  /** UTF-16 length of the scanned event's content (when its mask has `content`). */
  contentChars = 0;
  /** Where the scanned event's content is in the buffer (between its quotes: [start, end)), and whether it holds an escape. */
  private contentStart = 0;
  private contentEnd = 0;
  private contentEscaped = false;
  /** Where the scanned line starts in the buffer. */
  private lineStart = 0;
  /** The scanned event has fields beyond the schema's. */
  others = false;
  /** The scanned edge. */
  readonly edge: TraceEdge = { src: '', dst: '', type: 'spawn' };

  private buf: Buffer = Buffer.alloc(0);
  /** The line's bytes are all ASCII: a string's UTF-16 length is its byte length. */
  private ascii = true;
  /** `buf` as 32-bit words from its first 4-byte-aligned byte, `wordsFrom` (an index into buf). */
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private wordsFrom = 0;
  /** Set by {@link stringEnd}: UTF-16 units the string's escapes save (`\n` 1, `\u00e9` 5), -1 when it has none. */
  private saved = -1;
  /** Set by {@link number}: the number read. */
  private num = 0;

  /** Starts a run of lines of `buf` (valid UTF-8). */
  startRun(buf: Buffer): void {
    if (buf !== this.buf || this.words.buffer !== buf.buffer) {
      this.buf = buf;
      const first = (4 - (buf.byteOffset & 3)) & 3;
      this.wordsFrom = first;
      this.words = new Uint32Array(buf.buffer, buf.byteOffset + first, Math.max(0, (buf.length - first) >> 2));
    }
  }

  /**
   * Reads line [start, stop) of the run's buffer (no line break; in the run given to {@link startRun}),
   * `chars` UTF-16 units long (as many as its bytes when they are all ASCII).
   * @returns the event's field mask (as `fastEventFields` would give for the parsed line), {@link SCANNED_EDGE},
   *   or {@link DECLINED} (parse it).
   */
  scan(start: number, stop: number, chars: number): number {
    const buf = this.buf;
    this.lineStart = start;
    this.ascii = chars === stop - start;
    let i = spaces(buf, start);
    if (buf[i] !== 123) return DECLINED;
    i = spaces(buf, i + 1);
    const fields = this.fields;
    let mask = 0;
    let others = false;
    this.others = false;
    for (;;) {
      const key = this.memberKey(buf, i, stop, TOP_KEYS);
      if (key === NO_KEY) return DECLINED;
      i = this.valueAt;
      if (key >= 0) {
        if ((mask & (1 << key)) !== 0) return DECLINED; // JSON.parse keeps the last, at the first's place: left to it
        i = this.field(buf, i, stop, key);
        mask |= 1 << key;
      } else if (key === UNKNOWN_KEY) {
        i = this.skipValue(buf, i, stop, 0);
        others = true;
      } else if (key === EDGE_KEY && mask === 0 && !others) {
        i = this.edgeValue(buf, i, stop);
        if (i === -1) return DECLINED;
        i = spaces(buf, i);
        return buf[i] === 125 && spaces(buf, i + 1) === stop ? SCANNED_EDGE : DECLINED;
      } else return DECLINED;
      if (i === -1) return DECLINED;
      i = spaces(buf, i);
      if (buf[i] === 44) i = spaces(buf, i + 1);
      else if (buf[i] === 125) break;
      else return DECLINED;
    }
    if (spaces(buf, i + 1) !== stop) return DECLINED;
    this.others = others;
    return eventFieldsVerdict(mask, fields);
  }

  /** Where the scanned event's content is in its line (when its mask has `content`): bytes from the line's start to its first byte, after the opening quote. */
  get contentFrom(): number {
    return this.contentStart - this.lineStart;
  }

  /** Bytes from the line's start to the content's closing quote; as `~to` (negative) when the content holds an escape. */
  get contentTo(): number {
    const to = this.contentEnd - this.lineStart;
    return this.contentEscaped ? ~to : to;
  }

  /** The scanned event's content (when its mask has `content`), as JSON.parse gives it; undefined when an escape in it is not JSON's. */
  content(): string | undefined {
    const buf = this.buf;
    if (!this.contentEscaped) return this.ascii ? latin1Slice.call(buf, this.contentStart, this.contentEnd) : utf8Slice.call(buf, this.contentStart, this.contentEnd);
    try {
      return JSON.parse(utf8Slice.call(buf, this.contentStart - 1, this.contentEnd + 1)) as string;
    } catch {
      return undefined;
    }
  }

  /**
   * Reads an object member's key at `i` (a string without escapes: an escaped key may spell a known
   * one) and its colon: the key's entry in `keys`, {@link UNKNOWN_KEY}, or {@link NO_KEY} when it is
   * no such member; sets {@link valueAt} to the value's first byte.
   */
  private memberKey(buf: Buffer, i: number, stop: number, keys: KnownNames<number>): number {
    if (buf[i] !== 34) return NO_KEY;
    const k1 = this.plainStringEnd(buf, i + 1, stop);
    if (k1 === -1) return NO_KEY;
    const key = lookUp(keys, buf, i + 1, k1) ?? UNKNOWN_KEY;
    const colon = spaces(buf, k1 + 1);
    if (buf[colon] !== 58) return NO_KEY;
    this.valueAt = spaces(buf, colon + 1);
    return key;
  }

  /** Set by {@link memberKey}: where the member's value starts. */
  private valueAt = 0;

  /** Reads known field `at`'s value at `i`; @returns the index after it, or -1 when the fast check would not take it. */
  private field(buf: Buffer, i: number, stop: number, at: number): number {
    switch (READS[at] as Read) {
      case Read.Text:
      case Read.NonEmptyText: {
        if (buf[i] !== 34) return -1;
        const end = this.stringEnd(buf, i + 1, stop);
        if (end === -1 || (READS[at] === Read.NonEmptyText && end === i + 1)) return -1;
        const text = this.text(buf, i + 1, end);
        if (text === undefined) return -1;
        this.fields[at] = text;
        return end + 1;
      }
      case Read.CheckedText: {
        if (buf[i] !== 34) return -1;
        const end = this.stringEnd(buf, i + 1, stop);
        return end === -1 ? -1 : end + 1;
      }
      case Read.Content: {
        if (buf[i] !== 34) return -1;
        const end = this.stringEnd(buf, i + 1, stop);
        if (end === -1) return -1;
        // a line of multi-byte text: its content's length from a decode (native: faster than counting in a loop)
        const units = this.ascii ? end - i - 1 : utf8Slice.call(buf, i + 1, end).length;
        this.contentChars = this.saved === -1 ? units : units - this.saved;
        this.contentStart = i + 1;
        this.contentEnd = end;
        this.contentEscaped = this.saved !== -1;
        return end + 1;
      }
      case Read.Enum: {
        if (buf[i] !== 34) return -1;
        const end = this.plainStringEnd(buf, i + 1, stop);
        const value = end === -1 ? undefined : lookUp(ENUMS[at]!, buf, i + 1, end);
        if (value === undefined) return -1;
        this.fields[at] = value;
        return end + 1;
      }
      case Read.Boolean: {
        const end = literal(buf, i);
        if (end === -1 || buf[i] === 110) return -1; // null
        this.fields[at] = buf[i] === 116;
        return end;
      }
      case Read.Number:
      case Read.NonNegative: {
        const end = this.number(buf, i);
        const v = this.num;
        if (end === -1 || !Number.isFinite(v) || (READS[at] === Read.NonNegative && !(v >= 0))) return -1;
        this.fields[at] = v;
        return end;
      }
      case Read.Strings:
        return this.strings(buf, i, stop, at);
      case Read.Source:
        return this.checkedObject(buf, i, stop, SOURCE_KEYS, true);
      case Read.Usage:
        return this.checkedObject(buf, i, stop, USAGE_KEYS, false);
    }
  }

  /**
   * Walks a `source` (SourceRefSchema: a non-empty `path`, `line` and `column` integers from 1) or
   * `usage` object (TokenUsageSchema: each token kind a finite number from 0), each occurrence of a
   * known key checked (JSON.parse keeps the last of a key given twice), other fields walked as any
   * value; @returns the index after it, or -1 when the schema would not take it (or a key is escaped).
   */
  private checkedObject(buf: Buffer, i: number, stop: number, keys: KnownNames<number>, source: boolean): number {
    if (buf[i] !== 123) return -1;
    i = spaces(buf, i + 1);
    let hasPath = false;
    if (buf[i] !== 125) {
      for (;;) {
        const key = this.memberKey(buf, i, stop, keys);
        if (key === NO_KEY || key === TO_ZOD_KEY) return -1;
        i = this.valueAt;
        if (key === UNKNOWN_KEY) i = this.skipValue(buf, i, stop, 1);
        else if (source && key === 0) {
          // the path: a non-empty string (its escapes checked)
          if (buf[i] !== 34) return -1;
          const end = this.stringEnd(buf, i + 1, stop);
          if (end === -1 || end === i + 1) return -1;
          hasPath = true;
          i = end + 1;
        } else {
          const end = this.number(buf, i);
          const v = this.num;
          if (end === -1 || !(source ? Number.isSafeInteger(v) && v >= 1 : Number.isFinite(v) && v >= 0)) return -1;
          i = end;
        }
        if (i === -1) return -1;
        i = spaces(buf, i);
        if (buf[i] === 44) i = spaces(buf, i + 1);
        else if (buf[i] === 125) break;
        else return -1;
      }
    }
    return source && !hasPath ? -1 : i + 1;
  }

  /** Reads `causes`: an array of strings. */
  private strings(buf: Buffer, i: number, stop: number, at: number): number {
    if (buf[i] !== 91) return -1;
    const out: string[] = [];
    i = spaces(buf, i + 1);
    if (buf[i] === 93) {
      this.fields[at] = out;
      return i + 1;
    }
    for (;;) {
      if (buf[i] !== 34) return -1;
      const end = this.stringEnd(buf, i + 1, stop);
      if (end === -1) return -1;
      const text = this.text(buf, i + 1, end);
      if (text === undefined) return -1;
      out.push(text);
      i = spaces(buf, end + 1);
      if (buf[i] === 44) i = spaces(buf, i + 1);
      else if (buf[i] === 93) {
        this.fields[at] = out;
        return i + 1;
      } else return -1;
    }
  }

  /** Reads an edge object (`fastEdge`: non-empty `src` and `dst`, a known `type`, no `__proto__`) into {@link edge}. */
  private edgeValue(buf: Buffer, i: number, stop: number): number {
    if (buf[i] !== 123) return -1;
    i = spaces(buf, i + 1);
    let seen = 0;
    const edge = this.edge;
    if (buf[i] === 125) return -1;
    for (;;) {
      const key = this.memberKey(buf, i, stop, EDGE_KEYS);
      if (key === NO_KEY || key === TO_ZOD_KEY || (key >= 0 && (seen & (1 << key)) !== 0)) return -1;
      i = this.valueAt;
      if (key === UNKNOWN_KEY) i = this.skipValue(buf, i, stop, 1);
      else {
        if (buf[i] !== 34) return -1;
        const end = key === 2 ? this.plainStringEnd(buf, i + 1, stop) : this.stringEnd(buf, i + 1, stop);
        if (end === -1) return -1;
        if (key === 2) {
          const type = lookUp(EDGE_TYPE_NAMES, buf, i + 1, end);
          if (type === undefined) return -1;
          edge.type = type;
        } else {
          const text = end === i + 1 ? undefined : this.text(buf, i + 1, end);
          if (text === undefined) return -1;
          if (key === 0) edge.src = text;
          else edge.dst = text;
        }
        seen |= 1 << key;
        i = end + 1;
      }
      if (i === -1) return -1;
      i = spaces(buf, i);
      if (buf[i] === 44) i = spaces(buf, i + 1);
      else if (buf[i] === 125) return seen === 0b111 ? i + 1 : -1;
      else return -1;
    }
  }

  /** Walks over any JSON value at `i` (an unknown field's), checking it as JSON.parse would; @returns the index after it, or -1. */
  private skipValue(buf: Buffer, i: number, stop: number, depth: number): number {
    const c = buf[i];
    if (c === 34) {
      const end = this.stringEnd(buf, i + 1, stop);
      return end === -1 ? -1 : end + 1;
    }
    if (c === 123 || c === 91) {
      if (depth >= MAX_DEPTH) return -1;
      const close = c === 123 ? 125 : 93;
      i = spaces(buf, i + 1);
      if (buf[i] === close) return i + 1;
      for (;;) {
        if (c === 123) {
          if (buf[i] !== 34) return -1;
          const k1 = this.stringEnd(buf, i + 1, stop);
          if (k1 === -1) return -1;
          i = spaces(buf, k1 + 1);
          if (buf[i] !== 58) return -1;
          i = spaces(buf, i + 1);
        }
        i = this.skipValue(buf, i, stop, depth + 1);
        if (i === -1) return -1;
        i = spaces(buf, i);
        if (buf[i] === 44) i = spaces(buf, i + 1);
        else if (buf[i] === close) return i + 1;
        else return -1;
      }
    }
    if (c === 116 || c === 102 || c === 110) return literal(buf, i);
    return this.number(buf, i);
  }

  /** The string [a, b) (no quotes) as JSON.parse gives it, or undefined when its escapes are not JSON's. */
  private text(buf: Buffer, a: number, b: number): string | undefined {
    // a short string of a line of multi-byte text is most often ASCII (an id, an agent): decoded as such, faster
    if (this.saved === -1) return this.ascii || isAsciiSpan(buf, a, b) ? latin1Slice.call(buf, a, b) : utf8Slice.call(buf, a, b);
    try {
      return JSON.parse(utf8Slice.call(buf, a - 1, b + 1)) as string;
    } catch {
      return undefined;
    }
  }

  /** The closing quote of a string opened before `from`, when it holds no escape (a key, an enum value); else -1. */
  private plainStringEnd(buf: Buffer, from: number, stop: number): number {
    const q = this.special(buf, from);
    return q < stop && buf[q] === 34 ? q : -1;
  }

  /**
   * The closing quote of a string opened before `from` (escapes checked: `\"`, `\\`, `\/`, `\b`,
   * `\f`, `\n`, `\r`, `\t`, `\uXXXX`), or -1 (no closing quote before `stop`, a bad escape, a
   * raw control byte); sets {@link saved}.
   */
  private stringEnd(buf: Buffer, from: number, stop: number): number {
    let p = from;
    let saved = -1;
    for (;;) {
      const q = this.special(buf, p);
      if (q >= stop) return -1;
      const c = buf[q];
      if (c === 34) {
        this.saved = saved;
        return q;
      }
      if (c !== 92) return -1; // a control byte
      if (saved === -1) saved = 0;
      const e = buf[q + 1];
      if (e === 117) {
        if (!(isHex(buf[q + 2]) && isHex(buf[q + 3]) && isHex(buf[q + 4]) && isHex(buf[q + 5]))) return -1;
        saved += 5;
        p = q + 6;
      } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        saved += 1;
        p = q + 2;
      } else return -1;
    }
  }

  /**
   * The first byte at or after `p` that is a quote, a backslash or below 0x20 (a line ends at one:
   * its line break, or the CR before it), four bytes at a time where the buffer's words allow.
   */
  private special(buf: Buffer, p: number): number {
    const from = this.wordsFrom;
    for (;;) {
      while (((p - from) & 3) !== 0) {
        const c = buf[p];
        if (c === 34 || c === 92 || c < 32 || c === undefined) return p;
        p++;
      }
      const words = this.words;
      let w = (p - from) >> 2;
      while (w < words.length && !hasSpecialByte(words[w])) w++;
      p = from + 4 * w;
      // the word holding one: found byte by byte (the loop above, from an aligned p, stops within it)
      for (let k = 0; k < 4; k++, p++) {
        const c = buf[p];
        if (c === 34 || c === 92 || c < 32 || c === undefined) return p;
      }
    }
  }

  /** Reads a JSON number at `i` into {@link num}; @returns the index after it, or -1 when JSON has no such number. */
  private number(buf: Buffer, i: number): number {
    const start = i;
    const negative = buf[i] === 45;
    if (negative) i++;
    let c = buf[i];
    let mantissa = 0;
    let digits = 0;
    if (c === 48) {
      c = buf[++i];
      if (c >= 48 && c <= 57) return -1; // a leading zero
    } else if (c >= 49 && c <= 57) {
      while (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        digits++;
        c = buf[++i];
      }
    } else return -1;
    let fraction = 0;
    if (c === 46) {
      c = buf[++i];
      if (!(c >= 48 && c <= 57)) return -1;
      while (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        fraction++;
        c = buf[++i];
      }
    }
    if (c === 101 || c === 69) {
      c = buf[++i];
      if (c === 43 || c === 45) c = buf[++i];
      if (!(c >= 48 && c <= 57)) return -1;
      while (c >= 48 && c <= 57) c = buf[++i];
      this.num = Number(buf.toString('latin1', start, i));
    } else if (digits + fraction <= 15 && fraction < POW10.length) {
      this.num = (negative ? -mantissa : mantissa) / POW10[fraction];
    } else this.num = Number(buf.toString('latin1', start, i));
    return i;
  }
}

/** The index of the first byte at or after `i` that is not a space. */
function spaces(buf: Buffer, i: number): number {
  while (buf[i] === 32) i++;
  return i;
}

/** True when bytes [a, b) are all ASCII (a loop: for the short strings of a record, cheaper than a native call). */
function isAsciiSpan(buf: Buffer, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (buf[i] >= 0x80) return false;
  return true;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** The index after `true`, `false` or `null` at `i`, or -1. */
function literal(buf: Buffer, i: number): number {
  const c = buf[i];
  if (c === 116) return buf[i + 1] === 114 && buf[i + 2] === 117 && buf[i + 3] === 101 ? i + 4 : -1;
  if (c === 102) return buf[i + 1] === 97 && buf[i + 2] === 108 && buf[i + 3] === 115 && buf[i + 4] === 101 ? i + 5 : -1;
  if (c === 110) return buf[i + 1] === 117 && buf[i + 2] === 108 && buf[i + 3] === 108 ? i + 4 : -1;
  return -1;
}
