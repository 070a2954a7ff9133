/** Short renderings of untrusted values for problem messages. */

/**
 * A short, safe rendering of a value for a message: never more than 60 characters, never a deep
 * walk (a value nested 100,000 levels deep must not overflow the stack), numbers as written.
 */
export function preview(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : `${v} (out of range)`;
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}
