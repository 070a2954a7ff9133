/** Short renderings of untrusted values for problem messages and terminal output. */

/**
 * Characters that change how a terminal or an editor shows text instead of being shown: C0 and
 * C1 controls (ESC, BEL, CSI 0x9B, OSC 0x9D, ...), DEL, bidi marks, embeddings, overrides and
 * isolates (U+200E/F, U+202A-202E, U+2066-2069, U+061C), line/paragraph separators, BOM.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * `text` with every character of {@link INVISIBLE} made visible as an escape (`\x1b`, `\u202e`;
 * `\n`, `\t`, `\r` as themselves escaped), so it cannot recolour, retitle, link or reorder what a
 * terminal shows. Other characters are kept.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * JSON text with the characters JSON.stringify leaves raw but a terminal acts on (C1 controls,
 * DEL, bidi controls, U+2028/2029) written as `\uXXXX` escapes: the same JSON value, safe to print.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A short, safe rendering of a value for a message: never more than 60 characters, never a deep
 * walk (a value nested 100,000 levels deep must not overflow the stack), numbers as written,
 * strings quoted with their control and bidi characters escaped.
 */
export function preview(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : `${v} (out of range)`;
  if (typeof v === 'string') return escapeJsonControls(JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v));
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/**
 * A file path of more than `max` characters cut at the front, on a separator, so its file name
 * and nearest folders stay (`…/lib/spotter/scanner.ex`): paths of one project differ at the end.
 * Text that is no path (it holds a space or no separator) is returned as it is.
 */
export function shortPath(text: string, max = 60): string {
  if (text.length <= max || /\s/.test(text) || !/[\\/]/.test(text)) return text;
  const parts = text.split(/(?=[\\/])/); // each part keeps its leading separator
  let tail = parts[parts.length - 1];
  for (let k = parts.length - 2; k > 0 && tail.length + parts[k].length <= max - 1; k--) tail = parts[k] + tail;
  return `…${tail}`;
}
