/**
 * The bucket plans a graph index keeps for one mode and bucket width (graph-window.ts plans a lane
 * row's bucket once, then reads it), carried to the index of the trace after an append without
 * copying them (issue #30): the new index's plans are a layer over the last index's, which hides
 * the buckets the append touched. A copy of every plan per append was 12-18 ms of each graph answer
 * at 1M events (tens of thousands of plans at Fit, two indices per append: the trace as read and
 * analysed). Pure: no `vscode`.
 */
import type { BucketPlan } from './graph-index';

/** Layers read through at most: a deeper stack is made one layer again when carried (one copy every so many appends). */
const MAX_LAYERS = 8;

/**
 * Plans by key (`lane:row:bucket number`): those set here over those of the layer below, less the
 * keys hidden when this layer was made. A plan a layer below gets later is read through too: a
 * bucket not hidden is the same bucket in both indices (graph-index.ts `carriedPlans`), so its plan is
 * (a bucket whose events' credit alone changed holds a plan of this layer's, its run bar's credit
 * taken again, or is hidden when it had none: graph-index.ts `recredit`).
 */
export class BucketPlans {
  private readonly own = new Map<string, BucketPlan>();

  private constructor(
    private below: BucketPlans | undefined,
    /** Keys of the layers below not to read through (buckets an append touched). */
    private readonly hidden: ReadonlySet<string> | undefined,
    /** Layers below this one. */
    private depth: number,
  ) {}

  /** An empty set of plans. */
  static empty(): BucketPlans {
    return new BucketPlans(undefined, undefined, 0);
  }

  /** The plan of `key`, undefined when none is kept. */
  get(key: string): BucketPlan | undefined {
    const plan = this.own.get(key);
    if (plan !== undefined || !this.below || this.hidden?.has(key)) return plan;
    return this.below.get(key);
  }

  /** Keeps `plan` under `key` in this layer. */
  set(key: string, plan: BucketPlan): void {
    this.own.set(key, plan);
  }

  /** Plans kept, counting each layer's (an upper bound: a key hidden or set again is counted in each). */
  get size(): number {
    return this.own.size + (this.below?.size ?? 0);
  }

  /** Drops every plan (this layer's and those read through). */
  clear(): void {
    this.own.clear();
    this.below = undefined;
    this.depth = 0;
  }

  /**
   * The plans for the index after an append: these, but `hidden`'s keys. O(1), or O(plans) once
   * every {@link MAX_LAYERS} appends (the stack made one layer).
   */
  carried(hidden: ReadonlySet<string>): BucketPlans {
    const base = this.depth + 1 >= MAX_LAYERS ? this.flattened() : this;
    return new BucketPlans(base, hidden, base.depth + 1);
  }

  /** These plans as one layer. */
  private flattened(): BucketPlans {
    const out = BucketPlans.empty();
    this.into(out.own, new Set());
    return out;
  }

  /** Adds the plans read through this layer to `out`, but the keys in `hiddenAbove` and those already there. */
  private into(out: Map<string, BucketPlan>, hiddenAbove: Set<string>): void {
    for (const [key, plan] of this.own) if (!hiddenAbove.has(key) && !out.has(key)) out.set(key, plan);
    if (!this.below) return;
    const hidden = this.hidden ? new Set([...hiddenAbove, ...this.hidden]) : hiddenAbove;
    this.below.into(out, hidden);
  }
}
