/**
 * A result's property made when first read: per-event lists an analysis can give (credit per id and
 * per step, the critical path's ids) cost tens of MB at 1M events, and the editor never reads them.
 * Pure: no `vscode`.
 */

/**
 * Makes `target[key]` an enumerable property whose value `make` builds when first read (or that a
 * write sets); after that it is a plain data property. Reads, spreads, JSON and structured clones
 * see it as a plain property.
 */
export function madeWhenRead<T extends object, K extends keyof T>(target: T, key: K, make: () => T[K]): void {
  const settle = (value: T[K]) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get(): T[K] {
      const value = make();
      settle(value);
      return value;
    },
    set(value: T[K]) {
      settle(value);
    },
  });
}
