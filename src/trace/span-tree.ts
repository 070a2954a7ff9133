/**
 * The span-tree core shared by every span format (OTLP today; Jaeger, Zipkin, Langfuse, Phoenix
 * readers build on it): from a flat list of spans it derives parentage (from parent ids only),
 * links, clock skew, open spans, orphans and parent cycles, deterministically, and says what it
 * found so the reader can report it (docs/model.md, "Span trees").
 *
 * Pure: no `vscode`, no I/O. Times are nanoseconds since the epoch (bigint).
 */

/** What the core needs of one span. */
export interface SpanNode {
  /** Trace id as normalized by the reader (lower-case hex); '' when absent. */
  traceId: string;
  /** Span id as normalized by the reader. */
  spanId: string;
  /** Parent span id; undefined or '' for a root. */
  parentSpanId?: string;
  /** Start, ns since the epoch; undefined when not recorded. */
  start?: bigint;
  /** End, ns since the epoch; undefined when not recorded (an open span). */
  end?: bigint;
  /** Span links: other spans this one is related to (not its parent). */
  links: { traceId: string; spanId: string; attributes?: Record<string, unknown> }[];
}

/** A link resolved to the spans of the file. */
export interface ResolvedLink {
  /** Index of the span that holds the link. */
  from: number;
  /** Index of the linked span, or undefined when it is not in the file. */
  to?: number;
  traceId: string;
  spanId: string;
  attributes?: Record<string, unknown>;
}

/** A parent id that no span of the file carries, and the spans that name it. */
export interface MissingParent {
  traceId: string;
  spanId: string;
  /** Indices of the orphans, in file order. */
  children: number[];
}

/** A parent cycle and where it was cut. */
export interface CutCycle {
  /** Indices of the spans on the cycle, starting with the one made a root. */
  cycle: number[];
  /** The span made a root (earliest start, then first in the file). */
  child: number;
  /** Its former parent (the cut edge is parent -> child). */
  parent: number;
}

/** The tree the core derived. Arrays are index for index with the input spans. */
export interface SpanTree {
  /** Parent span index (after cycles are cut); undefined for roots and orphans. */
  parent: (number | undefined)[];
  /** Missing parent id of an orphan (index into {@link missing}), else undefined. */
  orphanOf: (number | undefined)[];
  missing: MissingParent[];
  cycles: CutCycle[];
  /** Depth below its root (a root or orphan is 0). */
  depth: number[];
  /**
   * The start used for ordering, ns: the recorded start, raised to the parent's effective start when
   * the child starts earlier (clock skew); the parent's effective start when the span has none.
   */
  effectiveStart: (bigint | undefined)[];
  /** Recorded start minus the parent's effective start when negative (ns), else undefined. */
  skew: (bigint | undefined)[];
  /** True when the span has no usable end (absent, 0, or before its start). */
  open: boolean[];
  links: ResolvedLink[];
  /** Distinct trace ids, in order of first appearance. */
  traceIds: string[];
}

/**
 * Builds the tree of `spans`.
 * - parent: the span with (traceId, parentSpanId); when several spans share that id, the nearest
 *   earlier one in the file, else the first;
 * - cycles: a chain of parents that returns to itself is cut at the span with the earliest start
 *   (ties: lowest index), which becomes a root; reported in `cycles`;
 * - orphans: a parent id not in the file leaves the span without a parent, named in `missing`;
 * - clock skew: a child whose start is before its parent's is reported in `skew` and ordered at
 *   the parent's start (cause before effect);
 * - open: an end that is absent, 0 or before the start.
 * Runs in O(n) apart from sorting the trace ids; never throws.
 */
export function buildSpanTree(spans: readonly SpanNode[]): SpanTree {
  const n = spans.length;
  const key = (t: string, s: string) => `${t}\u0000${s}`;
  const byKey = new Map<string, number[]>();
  const traceIds: string[] = [];
  const seenTrace = new Set<string>();
  spans.forEach((s, i) => {
    const k = key(s.traceId, s.spanId);
    const list = byKey.get(k);
    if (list) list.push(i);
    else byKey.set(k, [i]);
    if (!seenTrace.has(s.traceId)) {
      seenTrace.add(s.traceId);
      traceIds.push(s.traceId);
    }
  });
  const resolve = (traceId: string, spanId: string, near: number): number | undefined => {
    const list = byKey.get(key(traceId, spanId));
    if (!list) return undefined;
    let best = list[0];
    for (const j of list) if (j < near) best = j;
    return best;
  };
  const parent: (number | undefined)[] = new Array(n).fill(undefined);
  const orphanOf: (number | undefined)[] = new Array(n).fill(undefined);
  const missing: MissingParent[] = [];
  const missingIndex = new Map<string, number>();
  const selfParent: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = spans[i].parentSpanId;
    if (!p) continue;
    const j = resolve(spans[i].traceId, p, i);
    if (j !== undefined && j !== i) parent[i] = j;
    else if (j === undefined) {
      const k = key(spans[i].traceId, p);
      let m = missingIndex.get(k);
      if (m === undefined) {
        m = missing.length;
        missingIndex.set(k, m);
        missing.push({ traceId: spans[i].traceId, spanId: p, children: [] });
      }
      missing[m].children.push(i);
      orphanOf[i] = m;
    }
    else selfParent.push(i); // a span naming itself as parent: a one-span cycle, made a root
  }
  // Cycles: walk each chain once (colour marking), cut each cycle found.
  const cycles: CutCycle[] = selfParent.map((i) => ({ cycle: [i], child: i, parent: i }));
  const state = new Uint8Array(n); // 0 new, 1 on the current path, 2 done
  for (let i = 0; i < n; i++) {
    if (state[i] !== 0) continue;
    const path: number[] = [];
    let v: number | undefined = i;
    while (v !== undefined && state[v] === 0) {
      state[v] = 1;
      path.push(v);
      v = parent[v];
    }
    if (v !== undefined && state[v] === 1) {
      const cycle = path.slice(path.indexOf(v));
      let cut = cycle[0];
      for (const c of cycle) {
        const a = spans[c].start;
        const b = spans[cut].start;
        if ((a !== undefined && (b === undefined || a < b)) || (a === b && c < cut)) cut = c;
      }
      const at = cycle.indexOf(cut);
      cycles.push({ cycle: [...cycle.slice(at), ...cycle.slice(0, at)], child: cut, parent: parent[cut]! });
      parent[cut] = undefined;
    }
    for (const p of path) state[p] = 2;
  }
  // Depth and effective start, parents first (memoized walk up; the tree is acyclic now).
  const depth = new Array<number>(n).fill(-1);
  const effectiveStart: (bigint | undefined)[] = new Array(n).fill(undefined);
  const skew: (bigint | undefined)[] = new Array(n).fill(undefined);
  for (let i = 0; i < n; i++) {
    if (depth[i] !== -1) continue;
    const chain: number[] = [];
    let v: number | undefined = i;
    while (v !== undefined && depth[v] === -1) {
      chain.push(v);
      v = parent[v];
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const c = chain[k];
      const p = parent[c];
      depth[c] = p === undefined ? 0 : depth[p] + 1;
      const own = spans[c].start;
      const ps = p === undefined ? undefined : effectiveStart[p];
      if (own === undefined) effectiveStart[c] = ps;
      else if (ps !== undefined && own < ps) {
        effectiveStart[c] = ps;
        skew[c] = own - ps;
      } else effectiveStart[c] = own;
    }
  }
  const open = spans.map((s) => s.end === undefined || s.end === 0n || (s.start !== undefined && s.end < s.start));
  const links: ResolvedLink[] = [];
  spans.forEach((s, i) => {
    for (const l of s.links) {
      const to = resolve(l.traceId || s.traceId, l.spanId, n);
      const link: ResolvedLink = { from: i, traceId: l.traceId || s.traceId, spanId: l.spanId };
      if (to !== undefined) link.to = to;
      if (l.attributes && Object.keys(l.attributes).length) link.attributes = l.attributes;
      links.push(link);
    }
  });
  return { parent, orphanOf, missing, cycles, depth, effectiveStart, skew, open, links, traceIds };
}

/**
 * A span or trace id as lower-case hex: hex is kept (lower-cased); base64 of 8 or 16 bytes (how
 * protobuf JSON mappings write `bytes`) is decoded; anything else is kept as written.
 */
export function normalizeSpanId(v: string): string {
  if (/^[0-9a-fA-F]+$/.test(v) && (v.length === 16 || v.length === 32)) return v.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(v) && (v.length === 12 || v.length === 24 || v.length === 11 || v.length === 22)) {
    let raw: string;
    try {
      raw = atob(v.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(v.length / 4) * 4, '='));
    } catch {
      return v;
    }
    if (raw.length === 8 || raw.length === 16) return Array.from(raw, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  }
  return v;
}
