/**
 * One memory region for the analysis's per-event typed arrays (the index's columns and each
 * phase's scratch), carved into views, instead of a hundred typed arrays of their own at a million
 * events.
 *
 * Why, at 1M events (docs/large-traces.md, Memory):
 * - Speed. V8 starts a full collection (mark-compact of the whole heap, about 0.5 s with a 1M-event
 *   trace loaded) each time the memory held by ArrayBuffers grows by ~64 MB since the last one
 *   (`external memory pressure` in `node --trace-gc --trace-incremental-marking`). Typed arrays of
 *   their own come to 400 MB over an analysis: 5 to 6 of them. The arena's reserve counts once.
 * - Peak RSS. A phase gives its scratch back ({@link Arena.release}) and the next phase writes over
 *   the same pages, so the resident memory holds the index and one phase's scratch, not the sum of
 *   all phases. Pages never written are never resident, so the reserve may be generous.
 *   {@link Arena.free} detaches the chunks of 1 MiB and more (`ArrayBuffer.prototype.transfer(0)`,
 *   ES2024: Node 22 and later), so their pages go back to the system at once, not at the next full
 *   collection (100 MB less resident after a 1M-event analysis).
 * The chunks are ordinary ArrayBuffers: V8's optimized code reads and writes views of a resizable
 * buffer 3 to 4 times more slowly in a bare loop (Node 20 and 24); with resizable chunks, shrunk by
 * free, a 1M-event analysis took 4.5-4.9 s where it takes 3.7-3.9 s with these (issue #30).
 * Rules for users: a view is zeroed when handed out; a view must not outlive a release past its
 * mark (after it, it reads as another phase's data) or {@link Arena.free} (after it, as empty), and
 * must never reach the results or a message to another thread (a structured clone of a view copies
 * its whole buffer). Copy what is kept.
 */

/** Where the arena stood; {@link Arena.release} goes back to it. */
export interface ArenaMark {
  chunk: number;
  offset: number;
}

/** A view the arena hands out. */
export type ArenaView = Int32Array | Float64Array | Uint16Array | Uint8Array;

type ViewConstructor = new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArenaView;

/** An ArrayBuffer with `transfer` (ES2024; not in this project's `lib`). */
interface TransferableBuffer extends ArrayBuffer {
  transfer?(length: number): ArrayBuffer;
}

/** One buffer of the arena: its reserve, and the end of what was ever handed out in it. */
interface Chunk {
  buffer: ArrayBuffer;
  /** Bytes it can hold. */
  capacity: number;
  /** Past this offset the memory is still zeros (never written since the chunk was made): no fill needed. */
  written: number;
}

/** Smallest extra chunk made when the reserve runs out (bytes), unless one view needs more. */
const CHUNK = 16 * 1024 * 1024;
/** Largest reserve asked of the system in one buffer (bytes). */
const MAX_RESERVE = 1024 * 1024 * 1024;
/** Smallest reserve (bytes): small traces take one small buffer. */
const MIN_RESERVE = 64 * 1024;
/**
 * Smallest chunk {@link Arena.free} detaches (bytes): a large trace's pages go back at once; a small
 * one's few pages may wait for a collection (a corpus of small traces makes an arena per trace, from every thread: issue 30).
 */
const DETACH_FROM = 1024 * 1024;

/** A bump allocator of typed arrays over a few large ArrayBuffers, with stack-like release. */
export class Arena {
  private chunks: Chunk[] = [];
  private chunk = 0;
  private offset = 0;
  /** Bytes of the first chunk (made again when the arena is used after {@link free}). */
  private readonly reserve: number;

  /**
   * @param reserve bytes to reserve at once (at least 64 KiB, at most 1 GiB). More is taken in
   *   further chunks when needed: a short reserve costs speed, never a result.
   */
  constructor(reserve: number) {
    this.reserve = Math.min(MAX_RESERVE, Math.max(MIN_RESERVE, Math.ceil(reserve / 8) * 8));
    this.chunks.push(makeChunk(this.reserve));
  }

  /**
   * A zeroed Int32Array of `length` entries; with `value`, each entry `value` (one pass: a view
   * zeroed then filled wrote its memory twice, a few ms per column of a million at each append of a
   * followed trace).
   */
  int32(length: number, value = 0): Int32Array {
    const at = this.take(length * 4);
    return this.zeroed(new Int32Array(this.chunks[this.chunk].buffer, at, length), at, value);
  }

  /** A zeroed Float64Array of `length` entries. */
  float64(length: number): Float64Array {
    const at = this.take(length * 8);
    return this.zeroed(new Float64Array(this.chunks[this.chunk].buffer, at, length), at);
  }

  /** A zeroed Uint16Array of `length` entries. */
  uint16(length: number): Uint16Array {
    const at = this.take(length * 2);
    return this.zeroed(new Uint16Array(this.chunks[this.chunk].buffer, at, length), at);
  }

  /** A zeroed Uint8Array of `length` entries. */
  uint8(length: number): Uint8Array {
    const at = this.take(length);
    return this.zeroed(new Uint8Array(this.chunks[this.chunk].buffer, at, length), at);
  }

  /**
   * An Int32Array of `length` entries holding `head` (its first `length` entries at most) then
   * zeros; only the zeros are written besides the copy. For growing a view (the old one is left as
   * waste until the next release) and for a followed trace's columns that go on from the last
   * analysis's.
   */
  grownInt32(head: Int32Array, length: number): Int32Array {
    const at = this.take(length * 4);
    return this.holding(new Int32Array(this.chunks[this.chunk].buffer, at, length), at, head);
  }

  /** A Uint8Array of `length` entries holding `head` then zeros (as {@link grownInt32}). */
  grownUint8(head: Uint8Array, length: number): Uint8Array {
    const at = this.take(length);
    return this.holding(new Uint8Array(this.chunks[this.chunk].buffer, at, length), at, head);
  }

  /**
   * Moves `views` down to lie one after the other from `mark`, and gives back everything after
   * them: for arrays kept whose length is known only once they are filled (made with room to spare
   * among scratch, then cut with `subarray`). The views must have been made after `mark`, in the
   * order given. A typed array of its own among them stays as it is. When the arena's views among
   * them do not lie in order in the chunk it now hands out from (the reserve ran into another
   * chunk), nothing moves or is given back. @returns the views at their new places (the ones given
   * must not be used after), in order.
   */
  compact<T extends readonly ArenaView[]>(mark: ArenaMark, views: T): T {
    const chunk = this.chunks[this.chunk];
    const ours = (view: ArenaView) => this.chunks.some((c) => c.buffer === view.buffer);
    let at = mark.offset;
    let last = mark.offset;
    for (const view of views) {
      if (!ours(view)) continue;
      if (mark.chunk !== this.chunk || view.buffer !== chunk.buffer || view.byteOffset < last) return views;
      last = view.byteOffset + view.byteLength;
    }
    const bytes = new Uint8Array(chunk.buffer);
    const moved = views.map((view) => {
      if (!ours(view)) return view;
      // each source lies at or above its new place (made in order, each at most as long as it was)
      bytes.copyWithin(at, view.byteOffset, view.byteOffset + view.byteLength);
      const out = new (view.constructor as ViewConstructor)(chunk.buffer, at, view.length);
      at += Math.ceil(view.byteLength / 8) * 8;
      return out;
    });
    this.offset = at;
    return moved as unknown as T;
  }

  /** Where the arena stands now. */
  mark(): ArenaMark {
    return { chunk: this.chunk, offset: this.offset };
  }

  /** Gives back every view made since `mark`: their memory is handed out again. */
  release(mark: ArenaMark): void {
    this.chunk = mark.chunk;
    this.offset = mark.offset;
  }

  /**
   * Gives back every view and the memory of the chunks of {@link DETACH_FROM} bytes and more to the
   * system at once (where the runtime has `ArrayBuffer.prototype.transfer`; else at the next
   * collection): the end of the arena's use. Views made before read as empty (detached), or as they
   * were (a small chunk, left to the collector); the arena may still be used: it takes new chunks.
   */
  free(): void {
    this.release({ chunk: 0, offset: 0 });
    for (const chunk of this.chunks) if (chunk.capacity >= DETACH_FROM) (chunk.buffer as TransferableBuffer).transfer?.(0);
    this.chunks = [];
  }

  /** Bytes written in all chunks (an upper bound of what the arena holds resident). */
  get touched(): number {
    return this.chunks.reduce((sum, c) => sum + c.written, 0);
  }

  /** Bytes of the first chunk, the reserve asked for at the start (rounded). */
  get reserved(): number {
    return this.reserve;
  }

  /** Bytes handed out now (in all chunks before the current one, plus the current one's). */
  get used(): number {
    let bytes = this.offset;
    for (let k = 0; k < this.chunk; k++) bytes += this.chunks[k].capacity;
    return bytes;
  }

  /**
   * The view with each entry `value` (0 by default): for 0, only the part below what this chunk
   * handed out before is filled (the rest is still the system's zeros, and filling it would make
   * its pages resident for nothing).
   */
  private zeroed<T extends ArenaView>(view: T, at: number, value = 0): T {
    if (value !== 0) view.fill(value);
    else this.zeroFrom(view, at, 0);
    this.wrote(view, at);
    return view;
  }

  /** The view holding `head` (cut to its length) then zeros. */
  private holding<T extends Int32Array | Uint8Array>(view: T, at: number, head: T): T {
    const kept = Math.min(head.length, view.length);
    view.set(head.length > kept ? head.subarray(0, kept) : head);
    this.zeroFrom(view, at, kept);
    this.wrote(view, at);
    return view;
  }

  /** Zeroes the view's entries from `from` up to what this chunk handed out before (see {@link zeroed}). */
  private zeroFrom(view: ArenaView, at: number, from: number): void {
    const chunk = this.chunks[this.chunk];
    // (up to the element that holds the written end: an Int32Array's end may fall inside a Float64Array's element)
    const end = chunk.written > at ? Math.min(view.length, Math.ceil((chunk.written - at) / view.BYTES_PER_ELEMENT)) : 0;
    if (end > from) view.fill(0, from, end);
  }

  /** Notes the view's bytes as written. */
  private wrote(view: ArenaView, at: number): void {
    const chunk = this.chunks[this.chunk];
    chunk.written = Math.max(chunk.written, at + view.byteLength);
  }

  /** Room for `bytes` in the current chunk (moving on to the next when full); @returns where it starts (a multiple of 8, the widest element). */
  private take(bytes: number): number {
    const size = Math.ceil(bytes / 8) * 8;
    // (after free, the first chunk is made again at the reserve's size)
    if (this.chunks.length === 0) this.chunks.push(makeChunk(Math.max(this.reserve, size)));
    while (this.offset + size > this.chunks[this.chunk].capacity) {
      this.chunk++;
      this.offset = 0;
      if (this.chunk === this.chunks.length) this.chunks.push(makeChunk(Math.max(Math.min(CHUNK, this.reserve), size)));
    }
    const at = this.offset;
    this.offset += size;
    return at;
  }
}

/** A chunk of `bytes` (an ordinary buffer: its pages are the system's zeros until written); a shorter one when the system has no room for it. */
function makeChunk(bytes: number): Chunk {
  let buffer: ArrayBuffer;
  try {
    buffer = new ArrayBuffer(bytes);
  } catch {
    buffer = new ArrayBuffer(Math.min(bytes, CHUNK));
  }
  return { buffer, capacity: buffer.byteLength, written: 0 };
}
