/**
 * A table of the distinct strings of a column (agents, tools, senders, trace ids): each string
 * once, each record a small integer into it. Pure: no imports.
 */
export class NameTable {
  /** The strings, by number. */
  readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();

  /** The number of `name`, given it the next number when it is new. */
  intern(name: string): number {
    let n = this.numbers.get(name);
    if (n === undefined) {
      n = this.names.length;
      this.names.push(name);
      this.numbers.set(name, n);
    }
    return n;
  }

  /** The number of `name`, or -1 when the table does not hold it. */
  numberOf(name: string): number {
    return this.numbers.get(name) ?? -1;
  }

  /** The string numbered `n` (a number {@link intern} gave). */
  name(n: number): string {
    return this.names[n];
  }

  /** Number of distinct strings. */
  get size(): number {
    return this.names.length;
  }
}
