/**
 * Writing a large JSON document straight to UTF-8 bytes, part by part: plain values through
 * `JSON.stringify`, long number columns (typed arrays) a slice at a time, so a 1M-event answer
 * never exists as one JavaScript array of numbers or one string beside its bytes. The bytes are
 * those of `JSON.stringify` of the same document with the columns as plain arrays. Pure: no imports.
 */

/** Numbers written per slice of a column (one short string at a time). */
const SLICE = 1 << 14;

/** A growing UTF-8 buffer of JSON text. */
export class JsonBytes {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;
  private readonly encoder = new TextEncoder();

  /** Appends text (already JSON). */
  text(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    this.reserve(s.length * 3);
    this.length += this.encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /** Appends `JSON.stringify(value)` (nothing for undefined: callers skip such members). */
  value(value: unknown): void {
    this.text(JSON.stringify(value));
  }

  /** Appends a column as a JSON array of numbers, as `JSON.stringify` writes it (non-finite numbers as null). */
  column(values: Int32Array | Uint8Array | Float64Array): void {
    this.text('[');
    for (let from = 0; from < values.length; from += SLICE) {
      const part = values.subarray(from, Math.min(values.length, from + SLICE));
      let s = part.join(',');
      if (values instanceof Float64Array && !part.every(Number.isFinite)) s = Array.from(part, (x) => JSON.stringify(x)).join(',');
      this.text(from === 0 ? s : `,${s}`);
    }
    this.text(']');
  }

  /** The bytes written (a copy of exactly that length, so the buffer can be moved to another thread). */
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + more) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
  }
}
