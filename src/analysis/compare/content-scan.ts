/**
 * Content normalized for comparing two runs of one task (issue 28), in one pass over the text into a
 * reusable buffer, and hashed from there: no intermediate strings, so that fingerprinting a run costs
 * about as much as reading its content once.
 *
 * What is taken out is decided by meaning: what differs between two runs of one task although they
 * did the same thing, and nothing a reader would call a different result.
 *
 * - Taken out (each becomes a placeholder):
 *   - the user's home folder (`/home/NAME`, `/Users/NAME`, `C:\Users\NAME`, `/root/`) -> `~`;
 *   - temporary names: the segments under a temporary folder (`/tmp`, `/var/tmp`, `\Temp`,
 *     macOS `/var/folders/XX/YYYY`) that hold a digit or start with `tmp` (what `mktemp`,
 *     Python's `tempfile` and pytest make) -> `<tmp>`;
 *   - dates and times: ISO 8601 (`2026-02-23`, `2026-02-23T12:40:23.123Z`, `2025-11-17 15:30:28`)
 *     and clock times with seconds (`12:40:23`, `9:05:07.250`) -> `<time>`;
 *   - durations: a number with a unit of time (`0.53s`, `120 ms`, `1m30.5s`, `3 minutes`) -> `<dur>`;
 *   - ids: UUIDs, ids with a word prefix (`call_dZSePrFOxvfS`, `toolu_01Y64X…`, `chatcmpl-AbC123…`),
 *     hexadecimal runs of 7 or more with a digit and a letter (commits, hashes), runs of 10 or more
 *     digits (epoch times, snowflake ids), letter-and-digit runs of 16 or more with two digits
 *     (random tokens) -> `<id>`;
 *   - process ids: the number after `pid` / `ppid` -> `<n>`;
 *   - case and white space: lower case, runs of white space as one space, trimmed.
 * - Kept: every other number. A count (`3 failed` against `4 failed`), an exit code, a line number, a
 *   size or a score is the result itself: content that differs only there is changed content.
 *
 * Only the first {@link COMPARED_CHARS} characters of a content are read. Lower case is per UTF-16
 * unit (`String.prototype.toLowerCase` of the one character; Greek final sigma and astral letters
 * are left as the one-character rule gives). Pure: no `vscode`, no Node; linear in the text read.
 */
import { isSpace } from '../text';

/** Characters of an event's content compared: a difference further in (the tail of a long tool output) is not seen. */
export const COMPARED_CHARS = 8000;

/** The user's home folder in a path: `/home/NAME`, `/Users/NAME`, `C:\Users\NAME`, `/root` (each becomes `~`). */
const HOME = /(?:\/home\/[^/\s'"`]+|\/Users\/[^/\s'"`]+|\b[a-z]:\\+users\\+[^\\\s'"`]+|\/root(?=\/))/gi;
/** macOS's per-user temporary folder, `/var/folders/XX/YYYY` (and `/T` under it). */
const MAC_TEMP = /(?:\/private)?\/var\/folders\/[^/\s'"`]+\/[^/\s'"`]+(?:\/T(?=\/))?/g;
/** A temporary folder (`/tmp`, `/var/tmp`, `\Temp`, or macOS's, already `<tmp>`) and the path under it. */
const TEMP_PATH = /((?:[/\\](?:tmp|temp)|<tmp>)(?=[/\\]))((?:[/\\]+[^/\\\s'"`:;,()[\]{}<>]+)+)/gi;
/** A segment of a path. */
const SEGMENT = /[^/\\]+/g;
/** A segment under a temporary folder that is a made-up name: a digit in it, or a `tmp` start. */
const MADE_UP = /\d|^tmp/i;
/** Quick test: the text may hold a temporary folder. */
const MAY_BE_TEMP = /[/\\](?:tmp|temp|folders)[/\\]/i;

/** Character classes of ASCII: word characters as `\w` has them, and which are hex digits. */
const DIGIT = 1;
const HEX_LETTER = 2;
const LETTER = 3;
const UNDERSCORE = 4;
const CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
for (let c = 65; c <= 90; c++) CLASS[c] = c <= 70 ? HEX_LETTER : LETTER;
for (let c = 97; c <= 122; c++) CLASS[c] = c <= 102 ? HEX_LETTER : LETTER;
CLASS[95] = UNDERSCORE;
/** ASCII lower case. */
const LOWER_ASCII = new Uint16Array(128);
for (let c = 0; c < 128; c++) LOWER_ASCII[c] = c >= 65 && c <= 90 ? c | 0x20 : c;

/** Units of time after a number (lower case); one-letter ones only right after the number (`5s`, not `5 s`). */
const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'sec', 'secs', 'second', 'seconds', 'm', 'min', 'mins', 'minute', 'minutes', 'h', 'hr', 'hrs', 'hour', 'hours']);

/** True when `s[u, v)` is one of {@link TIME_UNITS} in any case (no string made). */
function isTimeUnit(s: string, u: number, v: number): boolean {
  for (const unit of TIME_UNIT_LIST) {
    if (unit.length !== v - u) continue;
    let k = 0;
    while (k < unit.length && (s.charCodeAt(u + k) | (s.charCodeAt(u + k) < 128 ? 0x20 : 0)) === unit.charCodeAt(k)) k++;
    if (k === unit.length) return true;
  }
  return false;
}

const TIME_UNIT_LIST = [...TIME_UNITS];

/** First letters of {@link TIME_UNITS} (lower case; `µ` | 0x20 is itself). */
const UNIT_START = new Set(Array.from(TIME_UNITS, (u) => u.charCodeAt(0) | 0x20));

const TIME = placeholder('<time>');
const ID = placeholder('<id>');
const DURATION = placeholder('<dur>');
const NUMBER = placeholder('<n>');

function placeholder(s: string): number[] {
  return Array.from(s, (ch) => ch.charCodeAt(0));
}

function isWord(c: number): boolean {
  return c < 128 && CLASS[c] !== 0;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Lower case of non-ASCII UTF-16 units, filled as met (0: not yet; {@link MANY}: more than one unit). */
const LOWER = new Uint16Array(0x10000);
const MANY = 0xffff;
const LOWER_MANY = new Map<number, string>();

/** Digits `n` long at `i` (and nothing more of them), or false. */
function digitsAt(s: string, i: number, n: number, count: number): boolean {
  if (i + count > n) return false;
  for (let k = i; k < i + count; k++) if (!isDigit(s.charCodeAt(k))) return false;
  return true;
}

/** End of a run of digits from `i` (i itself when none). */
function digitsEnd(s: string, i: number, n: number): number {
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  return i;
}

/** True when `i` is past the end or not a word character (a `\b` after a word character). */
function boundary(s: string, i: number, n: number): boolean {
  return i >= n || !isWord(s.charCodeAt(i));
}

/** The end of an ISO 8601 date (and time) starting at `i`, else -1 (see the module comment). */
function timestampEnd(s: string, i: number, n: number): number {
  if (!(digitsAt(s, i, n, 4) && s.charCodeAt(i + 4) === 45 && digitsAt(s, i + 5, n, 2) && s.charCodeAt(i + 7) === 45 && digitsAt(s, i + 8, n, 2))) return -1;
  const date = i + 10;
  const sep = s.charCodeAt(date);
  if ((sep === 84 || sep === 116 || sep === 32) && digitsAt(s, date + 1, n, 2) && s.charCodeAt(date + 3) === 58 && digitsAt(s, date + 4, n, 2)) {
    let k = date + 6;
    if (s.charCodeAt(k) === 58 && digitsAt(s, k + 1, n, 2)) {
      k += 3;
      const f = s.charCodeAt(k);
      if ((f === 46 || f === 44) && isDigit(s.charCodeAt(k + 1))) k = digitsEnd(s, k + 1, n);
    }
    const z = s.charCodeAt(k);
    if (z === 90 || z === 122) k++;
    else if ((z === 43 || z === 45) && digitsAt(s, k + 1, n, 2)) {
      const colon = s.charCodeAt(k + 3) === 58 ? 1 : 0;
      if (digitsAt(s, k + 3 + colon, n, 2)) k += 5 + colon;
    }
    if (boundary(s, k, n)) return k;
  }
  return boundary(s, date, n) ? date : -1;
}

/** The end of a clock time with seconds (`h:mm:ss`, `hh:mm:ss.fff`, a `Z` after) at `i`, else -1; not after a `:` (a `file:line:col`). */
function clockEnd(s: string, i: number, n: number): number {
  if (i > 0 && s.charCodeAt(i - 1) === 58) return -1;
  const h = digitsEnd(s, i, n);
  if (h - i < 1 || h - i > 2 || s.charCodeAt(h) !== 58 || !digitsAt(s, h + 1, n, 2) || s.charCodeAt(h + 3) !== 58 || !digitsAt(s, h + 4, n, 2)) return -1;
  let k = h + 6;
  const f = s.charCodeAt(k);
  if ((f === 46 || f === 44) && isDigit(s.charCodeAt(k + 1))) k = digitsEnd(s, k + 1, n);
  const z = s.charCodeAt(k);
  if (z === 90 || z === 122) k++;
  return boundary(s, k, n) ? k : -1;
}

const UUID_GROUPS = [8, 4, 4, 4, 12];

/** The end of a UUID (8-4-4-4-12 hex digits) at `i`, else -1. */
function uuidEnd(s: string, i: number, n: number): number {
  let k = i;
  for (const len of UUID_GROUPS) {
    if (k !== i) {
      if (s.charCodeAt(k) !== 45) return -1;
      k++;
    }
    for (let e = k + len; k < e; k++) {
      const c = s.charCodeAt(k);
      if (!(c < 128 && (CLASS[c] === DIGIT || CLASS[c] === HEX_LETTER))) return -1;
    }
  }
  return boundary(s, k, n) ? k : -1;
}

/** The end of a duration (numbers each with a unit of time: `0.53s`, `120 ms`, `1h30m`) at `i`, else -1. */
function durationEnd(s: string, i: number, n: number): number {
  let k = i;
  for (let first = true; ; first = false) {
    let d = digitsEnd(s, k, n);
    if (d === k) return -1;
    if (s.charCodeAt(d) === 46 && isDigit(s.charCodeAt(d + 1))) d = digitsEnd(s, d + 1, n);
    let u = d;
    const spaced = first && s.charCodeAt(u) === 32;
    if (spaced) u++;
    let v = u;
    while (v < n && v - u <= 7) {
      const c = s.charCodeAt(v);
      if (!((c < 128 && (CLASS[c] === LETTER || CLASS[c] === HEX_LETTER)) || c === 0xb5)) break;
      v++;
    }
    if (v === u || v - u > 7 || !UNIT_START.has(s.charCodeAt(u) | 0x20) || !isTimeUnit(s, u, v) || (spaced && v - u === 1)) return -1;
    if (v < n && isDigit(s.charCodeAt(v))) {
      k = v;
      continue;
    }
    return boundary(s, v, n) ? v : -1;
  }
}

/**
 * Normalizes contents (see the module comment) into a buffer it keeps between calls, and hashes
 * what it holds. Not reentrant: one normalization at a time per instance.
 */
export class ContentNormalizer {
  /** Up to 4 characters written per character read (a one-character duration `1s` is `<dur>`), and a head. */
  private buf = new Uint16Array(4 * COMPARED_CHARS + 256);
  private length = 0;
  /** A space is due before the next character written (not at the start). */
  private space = false;

  /** Empties the buffer. */
  reset(): this {
    this.length = 0;
    this.space = false;
    return this;
  }

  /** Appends `text` as it is (a stop's reason, a reward's channel: compared exactly). */
  raw(text: string): this {
    this.room(text.length);
    for (let i = 0; i < text.length; i++) this.buf[this.length++] = text.charCodeAt(i);
    return this;
  }

  /** Appends `text` normalized (see the module comment); white space before it and after it is dropped. */
  content(text: string): this {
    const head = text.length > COMPARED_CHARS ? text.slice(0, COMPARED_CHARS) : text;
    const start = this.length;
    if (!this.scan(head)) return this;
    // a `/` or `\` was read: the home folder and temporary names are taken out, and the text read again
    let s = head;
    if (s.includes('/home/') || s.includes('/Users/') || s.includes('/root/') || /\\users\\/i.test(s)) s = s.replace(HOME, '~');
    if (MAY_BE_TEMP.test(s)) s = s.replace(MAC_TEMP, '<tmp>').replace(TEMP_PATH, (_, root: string, rest: string) => root + rest.replace(SEGMENT, (segment) => (MADE_UP.test(segment) ? '<tmp>' : segment)));
    if (s !== head) {
      this.length = start;
      this.scan(s);
    }
    return this;
  }

  /** Writes `s` normalized but for paths; true when it holds a `/` or a `\`. */
  private scan(s: string): boolean {
    let slash = false;
    const n = s.length;
    this.room(4 * n + 16);
    // the common cases inline, on locals: a word of letters (no `-` after it), ASCII punctuation, white space
    const buf = this.buf;
    let o = this.length;
    let space = false;
    let i = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c < 128) {
        if (CLASS[c] !== 0) {
          // written as read, kept when the word is a plain one
          let w = space && o > 0 ? o + 1 : o;
          let j = i;
          let digits = 0;
          for (; j < n; j++) {
            const d = s.charCodeAt(j);
            if (d >= 128) break;
            const k = CLASS[d];
            if (k === 0) break;
            if (k === DIGIT) digits++;
            buf[w++] = LOWER_ASCII[d];
          }
          const next = j < n ? s.charCodeAt(j) : -1;
          // plain: a word without a digit, but `pid`, `ppid` and a prefix before `-` (`chatcmpl-…`);
          // or a short number with no unit, date, time or decimal part after it
          const plain =
            digits === 0
              ? next !== 45 && !((c === 112 || c === 80) && j - i <= 4)
              : digits === j - i && digits < 10 && next !== 45 && next !== 58 && next !== 46 && next !== 44 && next !== 0xb5 && !(next === 32 && j + 1 < n && UNIT_START.has(s.charCodeAt(j + 1) | 0x20));
          if (plain) {
            if (space && o > 0) buf[o] = 32;
            o = w;
            space = false;
            i = j;
            continue;
          }
          this.length = o;
          this.space = space;
          i = this.word(s, i, n);
          o = this.length;
          space = this.space;
          continue;
        }
        if (c === 32 || (c >= 9 && c <= 13)) space = true;
        else {
          if (c === 47 || c === 92) slash = true;
          if (space && o > 0) buf[o++] = 32;
          space = false;
          buf[o++] = c;
        }
        i++;
        continue;
      }
      if (isSpace(c)) space = true;
      else {
        this.length = o;
        this.space = space;
        this.put(c);
        o = this.length;
        space = false;
      }
      i++;
    }
    this.length = o;
    this.space = false;
    return slash;
  }

  /** What the buffer holds, as a string. */
  text(): string {
    let out = '';
    for (let i = 0; i < this.length; i += 4096) out += String.fromCharCode(...this.buf.subarray(i, Math.min(this.length, i + 4096)));
    return out;
  }

  /**
   * A 64-bit hash of what the buffer holds after the number `seed`, as two 32-bit halves written to
   * `out[0]` and `out[1]`: FNV-1a (Fowler, Noll, Vo) and a multiply-xorshift with MurmurHash2's
   * constant (Appleby), each finished with MurmurHash3's fmix32. Two different contents of two
   * 1M-event runs meet by chance with a probability of about 10^-7.
   */
  hash(seed: number, out: Int32Array): void {
    const { buf, length } = this;
    let h1 = (0x811c9dc5 ^ seed) | 0;
    let h2 = (0x9747b28c ^ Math.imul(seed, 0x9e3779b1)) | 0;
    for (let i = 0; i < length; i++) {
      const c = buf[i];
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    out[0] = fmix32(h1 ^ length);
    out[1] = fmix32(h2 ^ length);
  }

  private room(more: number): void {
    if (this.length + more + 8 <= this.buf.length) return;
    const grown = new Uint16Array(Math.max(2 * this.buf.length, this.length + more + 8));
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
  }

  /** Writes one character, lower case, after a space when one is due. */
  private put(c: number): void {
    if (this.space) {
      if (this.length > 0) this.buf[this.length++] = 32;
      this.space = false;
    }
    if (c < 128) {
      this.buf[this.length++] = c >= 65 && c <= 90 ? c | 0x20 : c;
      return;
    }
    let l = LOWER[c];
    if (l === 0) {
      const s = String.fromCharCode(c).toLowerCase();
      if (s.length === 1) l = LOWER[c] = s.charCodeAt(0) === MANY ? c : s.charCodeAt(0);
      else {
        LOWER[c] = l = MANY;
        LOWER_MANY.set(c, s);
      }
    }
    if (l !== MANY) this.buf[this.length++] = l;
    else for (const ch of LOWER_MANY.get(c)!) this.buf[this.length++] = ch.charCodeAt(0);
  }

  private putAll(chars: readonly number[]): void {
    for (const c of chars) this.put(c);
  }

  /** Reads the word (a run of `\w`) at `i`, writes it or what replaces it, and returns where reading goes on. */
  private word(s: string, i: number, n: number): number {
    let j = i;
    let digits = 0;
    let hexLetters = 0;
    let letters = 0;
    let underscores = 0;
    for (; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c >= 128) break;
      const k = CLASS[c];
      if (k === 0) break;
      if (k === DIGIT) digits++;
      else if (k === HEX_LETTER) hexLetters++;
      else if (k === LETTER) letters++;
      else underscores++;
    }
    const len = j - i;
    const next = j < n ? s.charCodeAt(j) : -1;
    if (next === 45 && len === 8 && letters === 0 && underscores === 0) {
      const e = uuidEnd(s, i, n);
      if (e !== -1) {
        this.putAll(ID);
        return e;
      }
    }
    if (digits === 0) {
      // `chatcmpl-AbC123…`: a prefix of 2 to 12 letters, `-`, an id
      if (underscores === 0 && len >= 2 && len <= 12 && next === 45) {
        const e = this.idTail(s, j + 1, n);
        if (e !== -1) {
          this.putAll(ID);
          return e;
        }
      }
      this.copy(s, i, j);
      if (len <= 4 && underscores === 0 && (next === 32 || next === 58 || next === 61 || next === 35)) {
        const w = s.slice(i, j).toLowerCase();
        if (w === 'pid' || w === 'ppid') return this.processId(s, j, n);
      }
      return j;
    }
    const first = s.charCodeAt(i);
    if (isDigit(first)) {
      if (next === 45 && len === 4 && digits === 4) {
        const e = timestampEnd(s, i, n);
        if (e !== -1) {
          this.putAll(TIME);
          return e;
        }
      }
      if (next === 58 && len <= 2 && digits === len) {
        const e = clockEnd(s, i, n);
        if (e !== -1) {
          this.putAll(TIME);
          return e;
        }
      }
      const e = durationEnd(s, i, n);
      if (e !== -1) {
        this.putAll(DURATION);
        return e;
      }
    }
    const isId =
      (digits === len && len >= 10) ||
      (letters === 0 && underscores === 0 && hexLetters > 0 && len >= 7) ||
      (underscores === 0 && len >= 16 && digits >= 2) ||
      (underscores === 1 && this.prefixedId(s, i, j));
    if (isId) {
      this.putAll(ID);
      return j;
    }
    this.copy(s, i, j);
    return j;
  }

  /** Writes `s[i, j)` (ASCII word characters), lower case. */
  private copy(s: string, i: number, j: number): void {
    if (i === j) return;
    this.put(s.charCodeAt(i));
    const buf = this.buf;
    let o = this.length;
    for (let k = i + 1; k < j; k++) {
      const c = s.charCodeAt(k);
      buf[o++] = c >= 65 && c <= 90 ? c | 0x20 : c;
    }
    this.length = o;
  }

  /** True when the word `s[i, j)` is a prefix of 2 to 12 letters, `_`, and an id (8 or more letters and digits with a digit). */
  private prefixedId(s: string, i: number, j: number): boolean {
    let k = i;
    while (k < j && CLASS[s.charCodeAt(k)] >= HEX_LETTER && CLASS[s.charCodeAt(k)] <= LETTER) k++;
    if (k - i < 2 || k - i > 12 || s.charCodeAt(k) !== 95) return false;
    return this.idTail(s, k + 1, j) === j;
  }

  /** The end of an id (a word of 8 or more letters and digits with a digit, no `_`) at `i`, ending a word, else -1. */
  private idTail(s: string, i: number, n: number): number {
    let k = i;
    let digits = 0;
    for (; k < n; k++) {
      const c = s.charCodeAt(k);
      if (c >= 128) break;
      const cls = CLASS[c];
      if (cls === 0 || cls === UNDERSCORE) break;
      if (cls === DIGIT) digits++;
    }
    return k - i >= 8 && digits > 0 && boundary(s, k, n) ? k : -1;
  }

  /** After `pid`: up to two of ` `, `:`, `=`, `#`, then digits (written as `<n>`); returns where reading goes on. */
  private processId(s: string, i: number, n: number): number {
    let k = i;
    while (k < n && k - i < 2) {
      const c = s.charCodeAt(k);
      if (c !== 32 && c !== 58 && c !== 61 && c !== 35) break;
      k++;
    }
    const d = digitsEnd(s, k, n);
    if (d === k || !boundary(s, d, n)) return i;
    for (let m = i; m < k; m++) {
      const c = s.charCodeAt(m);
      if (c === 32) this.space = true;
      else this.put(c);
    }
    this.putAll(NUMBER);
    return d;
  }
}

/** MurmurHash3's 32-bit finalizer (Appleby): a bijection of 32-bit integers in which every input bit moves every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
