/**
 * Text helpers shared by the analyses: content normalization, 32-bit fingerprints, salient tokens
 * and the word patterns that mark completion claims, errors and verification.
 *
 * Everything here is linear in the length of the text it is given; long payloads are cut to
 * {@link MAX_TEXT} characters first, so a 100k-event trace with large tool outputs stays fast.
 */
import { FNV_OFFSET, FNV_PRIME, type TokenInterner } from './interner';

/** Characters of an event's content looked at by the analyses (head of the text). */
export const MAX_TEXT = 4000;

/**
 * FNV-1a hash of a string (32 bits, as an unsigned integer).
 * Source: Fowler, Noll, Vo, "FNV hash" (http://www.isthe.com/chongo/tech/comp/fnv/).
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * {@link fnv1a} of `text.trim()` from two seeds at once (each character read once, no trimmed text
 * made), as signed 32-bit integers into `out[0]` (from `seedA`) and `out[1]` (from `seedB`).
 */
export function trimmedFnv1aTwice(text: string, seedA: number, seedB: number, out: Int32Array): void {
  let from = 0;
  let to = text.length;
  while (from < to && isSpace(text.charCodeAt(from))) from++;
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  let a = seedA | 0;
  let b = seedB | 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, FNV_PRIME);
    b = Math.imul(b ^ c, FNV_PRIME);
  }
  out[0] = a;
  out[1] = b;
}

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?\b/g;
const WHITESPACE = /\s+/g;
const HAS_DATE = /\d{4}-\d{2}-\d{2}/;

/**
 * Normalized content used for "same content" comparisons: lower case, ISO timestamps removed,
 * runs of white space collapsed, trimmed, cut to {@link MAX_TEXT} characters.
 * Digits and hashes are kept on purpose: `len=129 sha=164cfd79` and `len=118 sha=d85f310f`
 * are different redacted arguments.
 */
export function normalizeContent(text: string): string {
  let s = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  s = s.toLowerCase();
  if (HAS_DATE.test(s)) s = s.replace(ISO_TIME, '');
  return s.replace(WHITESPACE, ' ').trim();
}

/** Characters with a meaning in a regular expression, escaped to be read as themselves. */
const REGEX_SPECIALS = /[.*+?^${}()|[\]\\/-]/g;

/**
 * Finds a normalized text (a slice of `normalizeContent`'s output) in texts whose head is plain,
 * ASCII without a date: their normalized content is lower case with white-space runs read as one
 * space and none at either end, so the pattern is found in the text itself by a regular expression
 * of its characters, any case, each of its spaces a run of white space (one at its start follows
 * another character, one at its end is followed by one): no normalized text is made, and V8 scans
 * a text for an expression several times faster than a scan of its characters in JavaScript.
 */
export class NormalizedFinder {
  private readonly expression: RegExp;

  /** @param pattern a normalized text (lower case, single spaces), non-empty. */
  constructor(private readonly pattern: string) {
    const words = pattern.split(' ').map((w) => w.replace(REGEX_SPECIALS, '\\$&'));
    // a space at the start or the end is between two other characters in the normalized text (trimmed)
    const head = words[0] === '' ? '(?<=\\S)' : '';
    const tail = words.length > 1 && words[words.length - 1] === '' ? '(?=\\S)' : '';
    this.expression = new RegExp(`${head}${words.join('\\s+')}${tail}`, 'i');
  }

  /**
   * `normalizeContent(text).includes(pattern)` for a text whose first {@link MAX_TEXT} characters are
   * ASCII and hold no date (the index's `plainHead` memo says so); not for another text.
   */
  in(text: string): boolean {
    const n = Math.min(text.length, MAX_TEXT);
    // normalizing only takes characters away: a head shorter than the pattern cannot hold it
    if (n < this.pattern.length) return false;
    return this.expression.test(n < text.length ? text.slice(0, n) : text);
  }
}

/**
 * True when `a` and `b` are the same text with runs of white space (JS `\s`) read as one space and
 * none at either end: `a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim()`, read in
 * place (no text made: a repeated call's long results are compared at each analysis).
 */
export function sameWhitespaceAside(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  let j = 0;
  const n = a.length;
  const m = b.length;
  while (i < n && isSpace(a.charCodeAt(i))) i++;
  while (j < m && isSpace(b.charCodeAt(j))) j++;
  for (;;) {
    // a run of white space on either side is one space, and only between other characters
    let spaceA = false;
    while (i < n && isSpace(a.charCodeAt(i))) {
      spaceA = true;
      i++;
    }
    let spaceB = false;
    while (j < m && isSpace(b.charCodeAt(j))) {
      spaceB = true;
      j++;
    }
    if (i === n || j === m) return i === n && j === m;
    if (spaceA !== spaceB || a.charCodeAt(i) !== b.charCodeAt(j)) return false;
    i++;
    j++;
  }
}

/** True for a character JS regular expressions' `\s` matches (WhiteSpace and LineTerminator of ECMA-262). */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * `fnv1a(normalizeContent(text))` without building the normalized text when the text's head is
 * ASCII with no date in it (the common case): lower case and white-space runs hashed as they are
 * read. Any other text takes the exact path. The same number either way.
 * @param plain when given, `plain[at]` is set to 1 when the head (first {@link MAX_TEXT}
 *   characters) is plain, ASCII without a date (/[^\x00-\x7f]|\d{4}-\d{2}-\d{2}/ finds nothing in
 *   it), else to 2: read from the same scan.
 */
export function normalizedHash(text: string, plain?: Uint8Array, at = 0): number {
  const n = Math.min(text.length, MAX_TEXT);
  let h = 0x811c9dc5;
  let started = false;
  let space = false;
  if (plain) plain[at] = 1;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128 || (c === 45 && isDateAt(text, i, n))) {
      if (plain) plain[at] = 2;
      return fnv1a(normalizeContent(text));
    }
    if (c === 32 || (c >= 9 && c <= 13)) {
      if (started) space = true;
      continue;
    }
    if (space) {
      h ^= 32;
      h = Math.imul(h, 0x01000193) >>> 0;
      space = false;
    }
    if (c >= 65 && c <= 90) c += 32;
    h ^= c;
    h = Math.imul(h, 0x01000193) >>> 0;
    started = true;
  }
  return h >>> 0;
}

/** True when the dash at `i` is the first dash of \d{4}-\d{2}-\d{2} inside text[0, n) ({@link HAS_DATE}). */
function isDateAt(text: string, i: number, n: number): boolean {
  if (i < 4 || i + 5 >= n || text.charCodeAt(i + 3) !== 45) return false;
  return isDigitAt(text, i - 4) && isDigitAt(text, i - 3) && isDigitAt(text, i - 2) && isDigitAt(text, i - 1) && isDigitAt(text, i + 1) && isDigitAt(text, i + 2) && isDigitAt(text, i + 4) && isDigitAt(text, i + 5);
}

function isDigitAt(text: string, k: number): boolean {
  const d = text.charCodeAt(k);
  return d >= 48 && d <= 57;
}

/** Common words that are never salient (lower case). */
export const COMMON = new Set(
  (
    'the and for with that this from are was were have has been will would can could should into our your their its not but all any each ' +
    'which what when where who how than then them they there these those also only more most some such very just over under about after ' +
    'before between during including result results final answer task conclusion verified verify verification confirm confirmed correct ' +
    'accurate based data step steps information provided found identified list please let proceed agree everyone terminate conversation ' +
    'end complete completed here next first second third now note however therefore thus since yes no ok okay great thanks thank you'
  ).split(' '),
);

/**
 * Salient tokens of a text: numbers (`1.445`, `30,000`) and capitalized words that are not common
 * words, lower-cased. These carry the facts of an answer (names, figures), so the event that first
 * introduced them is where that fact entered the run.
 * @returns a set of tokens (at most the first {@link MAX_TEXT} characters are read).
 */
export function salientTokens(text: string): Set<string> {
  const out = new Set<string>();
  forEachSalientToken(text, (w) => out.add(w));
  return out;
}

/**
 * Calls `onToken` with each salient token of a text in text order, repeats included (see
 * {@link salientTokens}). A scanner with exactly the matches of
 * /[A-Za-z][A-Za-z'\-]{2,}|\d[\d,.:/]*\/g (each number without its trailing [.,:/]), several times
 * faster than the expression: only capitalized words and numbers are copied out of the text.
 */
export function forEachSalientToken(text: string, onToken: (token: string) => void): void {
  const n = Math.min(text.length, MAX_TEXT);
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isAsciiLetter(c)) {
      let j = i + 1;
      while (j < n && isWordTail(text.charCodeAt(j))) j++;
      // a run too short to match: no match starts inside it either (its tail cannot start one)
      if (j - i >= 3 && c <= 90) {
        const w = text.slice(i, j).toLowerCase();
        if (!COMMON.has(w)) onToken(w);
      }
      i = j;
    } else if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < n && isNumberTail(text.charCodeAt(j))) j++;
      let end = j;
      while (end > i + 1 && isNumberTrail(text.charCodeAt(end - 1))) end--;
      onToken(text.slice(i, end));
      i = j;
    } else i++;
  }
}

/** A growing buffer of token ids, filled by {@link salientTokenIds}. */
export interface TokenIds {
  ids: Int32Array;
}

/**
 * {@link forEachSalientToken} as ids of `interner` (tokens in its skip set, e.g. {@link COMMON},
 * left out of the words), written to `out.ids` (grown when needed): the same tokens in the same
 * order, without copying a token met before. @returns how many were written.
 */
export function salientTokenIds(text: string, interner: TokenInterner, out: TokenIds): number {
  const n = Math.min(text.length, MAX_TEXT);
  let count = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? ASCII_CLASS[c] : 0;
    let id = -1;
    if ((kind & LETTER) !== 0) {
      let j = i + 1;
      while (j < n && hasClass(text.charCodeAt(j), WORD_TAIL)) j++;
      if (j - i >= 3 && c <= 90) {
        id = interner.id(text, i, j, true);
        if (interner.skipped(id)) id = -1;
      }
      i = j;
    } else if ((kind & DIGIT) !== 0) {
      let j = i + 1;
      while (j < n && hasClass(text.charCodeAt(j), NUMBER_TAIL)) j++;
      let end = j;
      while (end > i + 1 && isNumberTrail(text.charCodeAt(end - 1))) end--;
      id = interner.id(text, i, end, false);
      i = j;
    } else i++;
    if (id === -1) continue;
    if (count === out.ids.length) {
      const more = new Int32Array(Math.max(64, count * 2));
      more.set(out.ids);
      out.ids = more;
    }
    out.ids[count++] = id;
  }
  return count;
}

/** A growing buffer of token ids and a text's hash, filled by {@link hashAndSalientIds}. */
export interface HashAndTokenIds extends TokenIds {
  /** The text's {@link normalizedHash} (unsigned 32 bits). */
  hash: number;
}

/**
 * {@link normalizedHash} and {@link salientTokenIds} of a text in one pass, for a text whose head
 * (first {@link MAX_TEXT} characters) is plain, ASCII without a date, and holds none of the words
 * {@link stripLogNoise} looks for (so that it is its own stripped text): each scan reads every
 * character through branches of its own, and one pass over a million events' content is 300-400 ms
 * less than the two (trace-index.ts reads both at once for credit's content links).
 * @param out receives the salient token ids (`out.ids` from `at` on, grown when needed) as salientTokenIds writes them, and the hash.
 * @param at where in `out.ids` the first id goes (those before it are kept).
 * @returns the number of ids written, or -1 when the text is not such a text (a character of 128 or
 *   more, a date or a noise word): then some of its tokens may have been given ids, and nothing else
 *   is meant (the caller reads the text with the two scans apart).
 */
export function hashAndSalientIds(text: string, interner: TokenInterner, out: HashAndTokenIds, at = 0): number {
  if (hasNoiseWord(text)) return -1;
  const n = Math.min(text.length, MAX_TEXT);
  let h = FNV_OFFSET;
  let started = false;
  let space = false;
  let count = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128) return -1;
    const kind = ASCII_CLASS[c];
    if ((kind & SPACE) !== 0) {
      // a run of white space is hashed as one space before the next other character (none at the start or the end)
      if (started) space = true;
      i++;
      continue;
    }
    if (space) {
      h = Math.imul(h ^ 32, FNV_PRIME);
      space = false;
    }
    started = true;
    let id = -1;
    let j = i + 1;
    if ((kind & LETTER) !== 0) {
      // a word run [A-Za-z][A-Za-z'\-]*, hashed lower-cased (a dash in it may end the four digits of a date: checked);
      // a capitalized one is a token, hashed apart as it is read (as the interner hashes it)
      const lc = c <= 90 ? c + 32 : c;
      h = Math.imul(h ^ lc, FNV_PRIME);
      let token = Math.imul(FNV_OFFSET ^ lc, FNV_PRIME);
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 128) return -1;
        if ((ASCII_CLASS[d] & WORD_TAIL) === 0) break;
        if (d === 45 && isDateAt(text, j, n)) return -1;
        const ld = d >= 65 && d <= 90 ? d + 32 : d;
        h = Math.imul(h ^ ld, FNV_PRIME);
        token = Math.imul(token ^ ld, FNV_PRIME);
      }
      if (j - i >= 3 && c <= 90) {
        id = interner.idOfHash(text, i, j, true, token);
        if (interner.skipped(id)) id = -1;
      }
    } else if ((kind & DIGIT) !== 0) {
      // a number run \d[\d,.:/]*, the token without its trailing [.,:/] (hashed as it is read: the hash up to its last other character)
      h = Math.imul(h ^ c, FNV_PRIME);
      let token = Math.imul(FNV_OFFSET ^ c, FNV_PRIME);
      let end = j;
      let tokenToEnd = token;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 128) return -1;
        if ((ASCII_CLASS[d] & NUMBER_TAIL) === 0) break;
        h = Math.imul(h ^ d, FNV_PRIME);
        token = Math.imul(token ^ d, FNV_PRIME);
        if (!isNumberTrail(d)) {
          end = j + 1;
          tokenToEnd = token;
        }
      }
      id = interner.idOfHash(text, i, end, false, tokenToEnd);
    } else {
      if (c === 45 && isDateAt(text, i, n)) return -1;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    i = j;
    if (id === -1) continue;
    if (at + count === out.ids.length) {
      const more = new Int32Array(Math.max(64, (at + count) * 2));
      more.set(out.ids);
      out.ids = more;
    }
    out.ids[at + count++] = id;
  }
  out.hash = h >>> 0;
  return count;
}

/** Classes of ASCII characters for the scanners, as bits of {@link ASCII_CLASS}: one load instead of a chain of comparisons per character. */
const LETTER = 1;
/** [A-Za-z'\-] */
const WORD_TAIL = 2;
const DIGIT = 4;
/** [\d,.:/] */
const NUMBER_TAIL = 8;
/** [A-Za-z0-9_'\-]: a content word's tail, capitals included (they are lowered as they are read) */
const CONTENT_TAIL = 16;
/** JS `\s` among ASCII characters: [\t\n\v\f\r ] */
const SPACE = 32;
const ASCII_CLASS = Uint8Array.from(
  { length: 128 },
  (_, c) =>
    (isAsciiLetter(c) ? LETTER : 0) |
    (isWordTail(c) ? WORD_TAIL : 0) |
    (c >= 48 && c <= 57 ? DIGIT : 0) |
    (isNumberTail(c) ? NUMBER_TAIL : 0) |
    (isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 95 || c === 39 || c === 45 ? CONTENT_TAIL : 0) |
    (c === 32 || (c >= 9 && c <= 13) ? SPACE : 0),
);

/** True when `c` is an ASCII character of class `bit` (one of {@link ASCII_CLASS}'s bits). */
function hasClass(c: number, bit: number): boolean {
  return c < 128 && (ASCII_CLASS[c] & bit) !== 0;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** [A-Za-z'\-] */
function isWordTail(c: number): boolean {
  return isAsciiLetter(c) || c === 39 || c === 45;
}

/** [\d,.:/] */
function isNumberTail(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 44 || c === 46 || c === 58 || c === 47;
}

/** [.,:/] */
function isNumberTrail(c: number): boolean {
  return c === 44 || c === 46 || c === 58 || c === 47;
}

/** A text with none of these is returned as it is by {@link stripLogNoise}. */
const NOISE_WORDS = ['/', 'Error', 'Warning', 'Traceback', 'File "', 'COMPLETE'];
const NOISE_LINE = /^\s*(?:[\w.]*(?:Warning|Error|Exception):|Traceback \(most recent|File "|\/[\w.\-]+\/[\w.\-/]+(?::\d+)?:|\s*response = await|[A-Z_.]+ COMPLETE\b)/;

/** True when the text holds one of {@link NOISE_WORDS}: each a plain substring search (faster than one expression of alternatives), no callback. */
function hasNoiseWord(text: string): boolean {
  for (let k = 0; k < NOISE_WORDS.length; k++) if (text.includes(NOISE_WORDS[k])) return true;
  return false;
}

/**
 * The text without harness log noise: lines of Python warnings and tracebacks, source paths
 * (`/usr/lib/...py:55: UserWarning: ...`) and run-script banners, which repeat across turns and
 * carry no content of the agents.
 */
export function stripLogNoise(text: string): string {
  if (!hasNoiseWord(text)) return text;
  return text
    .split('\n')
    .filter((line) => !NOISE_LINE.test(line))
    .join('\n');
}

/** Lower-cased word tokens of a text (for novelty: share of words not seen before). */
export function wordTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, MAX_TEXT).toLowerCase().matchAll(/[a-z0-9][a-z0-9_'\-]*/g)) out.add(m[0]);
  return out;
}

/** A claim that the task is done ("TERMINATE", "FINAL ANSWER:", "task is complete", a satisfied ledger). */
export const COMPLETION_CLAIM =
  /\bTERMINATE\b|FINAL ANSWER\s*:|\btask (?:is|has been) (?:now )?(?:complete|completed|done|finished|solved)\b|\brequest (?:is |has been )?satisfied\b|"is_request_satisfied"\s*:\s*\{[^}]*"answer"\s*:\s*true|<INFO>\s*finished\b/i;

/**
 * A sentence that says the work succeeded: it passes, succeeded, works, is fixed, done or complete
 * ("All tests pass. Done!", "The build succeeded."). Read sentence by sentence with
 * {@link claimsSuccess}, which leaves out a sentence that also negates or reports a failure.
 */
const SUCCESS_WORDS = /\b(?:pass(?:es|ed)?|passing|succeed(?:s|ed)?|success(?:ful(?:ly)?)?|works|working|fixed|done|complete[ds]?|finished|all good|green)\b/i;
const NEGATED = /\b(?:not|no|never|nothing|cannot|unable|fail(?:s|ed|ing|ure)?|error|errors|broken|still)\b|n't\b/i;

/**
 * True when one sentence of `text` (its prose: fenced code left out) says the work succeeded with no
 * negation or failure in the same sentence, and no sentence of it reports a failure ("Done!", "All
 * tests pass."; not "The tests still fail", "I could not get it to pass", "Done. But 2 tests fail.").
 */
export function claimsSuccess(text: string): boolean {
  const prose = withoutFencedCode(text).slice(0, 4000);
  // a message that also says something fails claims nothing ("Done. But the tests still fail.")
  if (FAILURE_REPORT.test(prose)) return false;
  for (const sentence of prose.split(/(?<=[.!?])\s+|\n+/)) if (SUCCESS_WORDS.test(sentence) && !NEGATED.test(sentence)) return true;
  return false;
}

/** Words that report a failure anywhere in a message: it is no claim of success, whatever else it says. */
const FAILURE_REPORT = /\b(?:fail(?:s|ed|ing|ure|ures)?|broken|unable|cannot|can't|couldn't|didn't|doesn't|isn't|aren't|won't)\b/i;

/** Text that reports an error (a failed command, a traceback, an exit code other than 0). */
export const ERROR_TEXT =
  /\bexit ?code:? *[1-9]\d*\b|\bexecution failed\b|\btraceback \(most recent call last\)|\b(?:[A-Z][a-z]+)?Error:|\bcommand not found\b|\bnot found\b|\bfailed to\b|\bcould not\b|\bunable to\b|\bpermission denied\b|\bexception\b/i;

/** Text that reports a verification (tests run, a check passed). */
export const VERIFICATION_TEXT =
  /\b(?:tests? (?:pass|passed|passing|ran|run)|all tests|verif(?:y|ied|ication)|validated?|checked|double-check|type-?check|lint(?:ed)?|build (?:succeeded|passed|ok))\b/i;

/** Tool names or arguments of a call that changes state (edits, writes, deletes, installs; not commits or pushes, which publish). */
export const CHANGE_TOOL =
  /\b(?:edit|multiedit|write|write_file|apply_patch|patch|str_replace\w*|create|insert|replace|delete|remove|rm|mv|move|install|notebookedit|update_(?:codes?|files?))\b/i;

/** Tool names or arguments of a call that verifies (tests, type checks, builds, linters). */
export const VERIFY_TOOL =
  /\b(?:test|tests|pytest|jest|mocha|vitest|unittest|tsc|typecheck|lint|eslint|ruff|mypy|check|verify|validate|build|compile|cargo|make|go test|npm (?:run )?test|node --test)\b/i;

const FENCED_CODE = /```[\s\S]*?(?:```|$)/g;

/** A text's prose: its fenced code blocks (an unclosed one runs to the end) replaced by a space. */
export function withoutFencedCode(text: string): string {
  return text.includes('```') ? text.replace(FENCED_CODE, ' ') : text;
}

/** Function words that are never content words (lower case). */
export const FUNCTION_WORDS = new Set(
  (
    'the and for with that this from are was were have has been will would can could should into our your their its not but all any each ' +
    'which what when where who how than then them they there these those also only more most some such very just over under about after ' +
    'before between during here now however therefore thus since yes okay you your yours ours his her him she him it’s it\'s i’m i\'m ' +
    'let let’s let\'s please may might must shall does did doing done being get got make made use used using one two out off own same ' +
    'both either neither other another while because until unless whether via per onto upon within without'
  ).split(' '),
);

/**
 * Content words of a text, for near-duplicate comparison of dialogue steps: lower-cased word tokens of
 * >= 3 characters that are not function words, with fenced code blocks removed (an artifact's code is
 * compared exactly, through the event fingerprints, not by resemblance). Reads at most
 * {@link MAX_TEXT} characters after code removal.
 */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  forEachContentWord(text, (w) => out.add(w));
  return out;
}

/**
 * Calls `onWord` with each content word of a text, in text order, repeats included (see
 * {@link contentWords}). A scanner with exactly the matches of /[a-z][a-z0-9_'’\-]*\/g over the
 * lower-cased text, each without its trailing ['’\-], several times faster than the expression.
 */
export function forEachContentWord(text: string, onWord: (word: string) => void): void {
  const prose = withoutFencedCode(text);
  const s = prose.slice(0, MAX_TEXT).toLowerCase();
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < 97 || c > 122) {
      i++;
      continue;
    }
    let j = i + 1;
    for (;;) {
      const d = j < n ? s.charCodeAt(j) : -1;
      if ((d >= 97 && d <= 122) || (d >= 48 && d <= 57) || d === 95 || d === 39 || d === 0x2019 || d === 45) j++;
      else break;
    }
    let end = j;
    while (end > i + 1) {
      const d = s.charCodeAt(end - 1);
      if (d === 39 || d === 0x2019 || d === 45) end--;
      else break;
    }
    if (end - i >= 3) {
      const w = s.slice(i, end);
      if (!FUNCTION_WORDS.has(w)) onWord(w);
    }
    i = j;
  }
}

/** A character outside ASCII. */
export const NON_ASCII = /[^\x00-\x7f]/;

/**
 * {@link forEachContentWord} as ids of `interner` (words in its skip set, e.g. {@link FUNCTION_WORDS},
 * left out): the same words in the same order. An ASCII text is lower-cased as it is read, without
 * copying it or a word met before; any other text is lower-cased first, as the expression does.
 */
export function forEachContentWordId(text: string, interner: TokenInterner, onWord: (id: number) => void): void {
  const prose = withoutFencedCode(text);
  const head = prose.slice(0, MAX_TEXT);
  const ascii = !NON_ASCII.test(head);
  const s = ascii ? head : head.toLowerCase();
  const n = s.length;
  let i = 0;
  while (i < n) {
    // a word starts with [a-z] once lowered, and goes on with [a-z0-9_'’\-]
    if (!hasClass(s.charCodeAt(i), LETTER)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const d = s.charCodeAt(j);
      if (hasClass(d, CONTENT_TAIL) || d === 0x2019) j++;
      else break;
    }
    let end = j;
    while (end > i + 1) {
      const d = s.charCodeAt(end - 1);
      if (d === 39 || d === 0x2019 || d === 45) end--;
      else break;
    }
    if (end - i >= 3) {
      const id = interner.id(s, i, end, ascii);
      if (!interner.skipped(id)) onWord(id);
    }
    i = j;
  }
}

/**
 * The fenced code blocks of a text (an artifact: code, a file), white space collapsed, joined; '' when
 * it has none. Compared exactly: a revision that changes anything is progress.
 */
export function fencedCode(text: string): string {
  if (!text.includes('```')) return '';
  const blocks = text.match(FENCED_CODE) ?? [];
  return blocks.map((b) => b.replace(/^```[^\n]*\n?/, '').replace(/```$/, '').replace(WHITESPACE, ' ').trim()).join('\n');
}

/**
 * Resemblance of two word sets, |A ∩ B| / |A ∪ B| (Jaccard; Broder, "On the resemblance and
 * containment of documents", 1997). 0 when both are empty.
 */
export function resemblance(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const w of small) if (large.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * An impasse: the agent says the task cannot go on without something it lacks ("I need more
 * information", "cannot be solved with the given data", "unable to proceed").
 */
export const IMPASSE_TEXT =
  /\b(?:need|require)s? (?:more|additional|further|the missing) (?:information|info|data|details)\b|(?:\bnot|n['’]t) (?:have )?enough (?:information|info|data)\b|\bmissing (?:information|data)\b|\b(?:can ?not|can['’]t|cannot|unable to) (?:be )?(?:solved?|answered?|determined?|proceed|continue|complete)\b|\bremains unsolvable\b|\bis unsolvable\b/i;

/** Agent names or roles that review, criticize or verify other agents' work. */
export const REVIEWER_ROLE = /review|critic|verif|judge|checker|evaluat|inspector|auditor|\bqa\b|qaengineer|quality assurance|tester|test engineer/i;

/** A verdict that approves the work under review (or a completion claim). */
export const APPROVAL_TEXT =
  /<INFO>\s*finished\b|\bapproved?\b|\blgtm\b|\blooks good\b|\bno (?:further |more |other )?(?:issues?|changes?|comments?|problems?|bugs?|concerns?)(?: (?:found|needed|required|detected))?\b|\btests? pass(?:ed|es)?\b|\ball (?:tests|checks) pass|\bis correct\b|\bverified\b/i;

/**
 * A verdict that raises issues with the work under review and asks for changes: names a defect
 * (bug, issue, missing, lacks, incorrect, not implemented / handled, fails to) or asks for a fix or a
 * revision. Plain planning words ("we should", "verify") are not a critique.
 */
export const CRITIQUE_TEXT =
  /\b(?:bugs?|issues?|defects?|missing|lacks?|lacking|incorrect(?:ly)?|not (?:yet )?(?:implemented|handled|addressed|resolved|correct(?:ly)?)|fails? to|(?:needs?|has) to be (?:fixed|revised|addressed|implemented)|please (?:fix|revise|address|correct)|(?:suggestions?|comments?) (?:for|on) revision|highest priority comment)\b/i;

const THOUSANDS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * A salient token as a value, so that one quantity written two ways is one value: a number loses its
 * thousands separators (`36,480` and `36480`) and a decimal its trailing zeros (`4.80`, `4.8`; `12.0`
 * is `12`). Other tokens (words, `10:30`, `3/4`, `1,5`) are returned as they are.
 */
export function canonicalValue(token: string): string {
  let v = THOUSANDS.test(token) ? token.replace(/,/g, '') : token;
  if (/^\d+\.\d+$/.test(v)) v = v.replace(/0+$/, '').replace(/\.$/, '');
  return v;
}
