/**
 * One event's parents and their link weights for credit's backward pass (credit.ts `propagate`):
 * gathered in first-seen order, each parent's weight summed in link order, so the pass gives the
 * same figures however they are kept.
 */
import type { Arena } from './arena';

/** Parents listed in place up to this many; beyond, a weight per position (an event with hundreds of parents would search its list quadratically). */
const LISTED_PARENTS = 16;

/**
 * One event's parents and their link weights, in first-seen order, for the backward pass: a short
 * list searched in place; past {@link LISTED_PARENTS} parents, a weight per position (zero between
 * events: a weight is positive, so zero marks a parent not seen yet). Either way each parent's
 * weight is summed in link order and the parents in first-seen order: the same figures.
 */
export class Parents {
  private count = 0;
  private readonly ids: number[] = [];
  private readonly weights: number[] = [];
  /** A weight per position, taken from the arena the first time an event has many parents. */
  private byPosition: Float64Array | undefined;
  /** True while the current event's weights are in {@link byPosition}. */
  private spilled = false;

  /** @param n positions of the trace (the weight per position's length); @param arena where that weight is taken from (zeroed). */
  constructor(
    private readonly n: number,
    private readonly arena: Arena,
  ) {}

  /** How many parents are gathered. */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.count = 0;
    this.spilled = false;
  }

  add(u: number, w: number): void {
    const { ids, weights } = this;
    if (this.spilled) {
      const at = this.byPosition!;
      if (at[u] === 0) ids[this.count++] = u;
      at[u] += w;
      return;
    }
    for (let q = 0; q < this.count; q++) {
      if (ids[q] === u) {
        weights[q] += w;
        return;
      }
    }
    ids[this.count] = u;
    weights[this.count++] = w;
    if (this.count > LISTED_PARENTS) this.spill();
  }

  /** Moves the listed weights to the weight per position. */
  private spill(): void {
    this.byPosition ??= this.arena.float64(this.n);
    for (let q = 0; q < this.count; q++) this.byPosition[this.ids[q]] = this.weights[q];
    this.spilled = true;
  }

  /**
   * Writes the parents, in first-seen order, and their weights (each summed in link order) to
   * `parent` and `weight` from `at` on; a spilled weight is set back to zero, for the next event.
   * @returns how many.
   */
  drain(parent: Int32Array, weight: Float64Array, at: number): number {
    const { ids } = this;
    if (this.spilled) {
      const by = this.byPosition!;
      for (let q = 0; q < this.count; q++) {
        const u = ids[q];
        parent[at + q] = u;
        weight[at + q] = by[u];
        by[u] = 0;
      }
    } else {
      for (let q = 0; q < this.count; q++) {
        parent[at + q] = ids[q];
        weight[at + q] = this.weights[q];
      }
    }
    return this.count;
  }
}
