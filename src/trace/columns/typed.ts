/**
 * Growing typed columns: a copy of a column with room for more records, the new room filled with
 * the column's "absent" value. Pure: no imports.
 */

/** A typed array of one of the kinds the columns use. */
export type Column = Int32Array | Float64Array | Uint8Array;

/**
 * A column like `column` (same kind) of `size` entries: its first `count` entries copied, the rest
 * set to `absent` (-1 for numbers into a table, NaN for measures, 0 for small enums).
 */
export function resized<T extends Column>(column: T, size: number, count: number, absent: number): T {
  const out = new (column.constructor as new (n: number) => T)(size);
  const keep = Math.min(count, size);
  out.set(column.subarray(0, keep) as never);
  if (absent !== 0) out.fill(absent, keep); // a new typed array holds zeros (0 in a Float64Array too)
  return out;
}
