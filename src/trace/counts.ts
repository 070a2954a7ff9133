/**
 * Counts, sums and fields keyed by trace text (event types, span names, agent names, ids) in plain
 * objects that go out as JSON. A key read from a trace can be "__proto__" or "constructor": read
 * with `obj[key]` it finds Object.prototype's members, and assigned it can set the object's
 * prototype and vanish. These helpers only ever see and make own fields.
 *
 * Pure: no imports.
 */

/** The own field `key` of `record`, or undefined (never an inherited member such as `constructor`). */
export function ownField<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Sets the own field `key` of `record` (enumerable, as JSON.parse makes it), "__proto__" included: never the prototype. */
export function setOwnField<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Adds `by` (default 1) to the own field `key` of `counts`, made when missing, "__proto__" included. */
export function addTo(counts: Record<string, number>, key: string, by = 1): void {
  setOwnField(counts, key, (ownField(counts, key) ?? 0) + by);
}
