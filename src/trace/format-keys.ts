/**
 * Which of the formats' sign keys a file's head holds, in one pass: most detectors of JSON exports
 * (OTLP, Phoenix, Langfuse, LangSmith, Jaeger, MAST...) read several `/"key"\s*:/` expressions over
 * the head, and each that fails reads all of it. Over a corpus of small traces of another format,
 * these misses were a fifth of `otrace analyze DIR`'s time (300 µs of 1.5 ms per 100-event trace).
 * A format that names its {@link TraceFormat.keys} is asked only when one of them is in the head.
 */

import { escapeRegExp } from '../shared/reg-exp';

/** How far into a file the sign keys are looked for: the farthest any detector reads for one (characters). */
export const SIGN_KEYS_WITHIN = 1 << 20;

/**
 * The keys of `keys` that occur in the first {@link SIGN_KEYS_WITHIN} characters of `text` as a
 * JSON object key: `"key"`, then white space and a colon (the form of every detector's own test).
 * A detector's `/"key"\s*:/` matches within that head exactly when its key is in the result, so a
 * format none of whose keys is found is not in the file. Keys are literal (no quote, backslash or
 * white space). @returns the keys found (a subset of `keys`).
 */
export function signKeysIn(text: string, keys: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (keys.length === 0) return found;
  const pattern = patternOf(keys);
  pattern.lastIndex = 0;
  const head = text.length > SIGN_KEYS_WITHIN ? text.slice(0, SIGN_KEYS_WITHIN) : text;
  for (let m = pattern.exec(head); m; m = pattern.exec(head)) {
    found.add(m[1]);
    if (found.size === keys.length) break;
  }
  return found;
}

/** The expression of the last keys asked for (the registry's, the same list on every call). */
let last: { keys: readonly string[]; pattern: RegExp } | undefined;

/** One expression for all of `keys` (kept while the same list is asked for). */
function patternOf(keys: readonly string[]): RegExp {
  if (last?.keys !== keys) last = { keys, pattern: new RegExp(`"(${keys.map(escapeRegExp).join('|')})"\\s*:`, 'g') };
  return last.pattern;
}
