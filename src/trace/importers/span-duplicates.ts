/**
 * Spans exported twice: the same work written again under new ids (two exporters on one pipeline, a
 * re-sent batch re-keyed by the backend). A copy has another id but the same trace, the same
 * recorded fields (the reader's fingerprint: name, type, times, input, output, usage, ...) and a
 * parent that is the same span, or a copy of it, or the same absent id. Counting copies twice doubles
 * tokens and makes every call look repeated (loops that never happened), so the readers keep one.
 *
 * Pure: no I/O. Cost O(spans) (each parent chain is walked once).
 */
import type { ImportSpan } from './span-import';

/**
 * The copies among `spans`: for each span that repeats an earlier one (same trace, same
 * fingerprint, same parent once copies are folded), the index of the span it repeats.
 * @param spans the spans of one file, in file order (ids may repeat; the first of an id is the one a child names).
 * @param fingerprint one string per span (index for index) holding what must be equal in two copies;
 *   never their ids. A span whose fingerprint is undefined is never a copy or an original.
 * @param acrossTraces per span (index for index): true when its copy may be in another trace (the
 *   reader's fingerprint pins it down: e.g. it holds a start time); absent or false: same trace only.
 * @returns copy index -> kept index (the first in processing order: parents before children, then file order);
 *   empty when no span repeats another. A parent cycle is not followed round (its spans are compared by their own parent id).
 */
export function duplicateSpans(spans: readonly Pick<ImportSpan, 'traceId' | 'spanId' | 'parentSpanId'>[], fingerprint: readonly (string | undefined)[], acrossTraces?: readonly boolean[]): Map<number, number> {
  const byId = new Map<string, number>();
  spans.forEach((s, i) => {
    if (!byId.has(s.spanId)) byId.set(s.spanId, i);
  });
  const firstOfKey = new Map<string, number>();
  const keptOf = new Map<number, number>();
  /** The id a span stands for once copies are folded: its own, or the id of the span it repeats. */
  const canonical: (string | undefined)[] = new Array(spans.length);
  const state = new Uint8Array(spans.length); // 0 new, 1 on the chain being walked, 2 done
  const settle = (i: number, parentKey: string): void => {
    const s = spans[i];
    const f = fingerprint[i];
    state[i] = 2;
    if (f === undefined) {
      canonical[i] = s.spanId;
      return;
    }
    const key = `${acrossTraces?.[i] ? '*' : s.traceId}\u0000${parentKey}\u0000${f}`;
    const first = firstOfKey.get(key);
    if (first === undefined || first === i) {
      firstOfKey.set(key, i);
      canonical[i] = s.spanId;
      return;
    }
    keptOf.set(i, first);
    canonical[i] = spans[first].spanId;
  };
  for (let start = 0; start < spans.length; start++) {
    if (state[start] === 2) continue;
    // Walk up to a settled ancestor, a root or an absent parent; then settle the chain from the top down.
    const chain: number[] = [];
    let i: number | undefined = start;
    while (i !== undefined && state[i] === 0) {
      state[i] = 1;
      chain.push(i);
      const parent: string | undefined = spans[i].parentSpanId;
      const p: number | undefined = parent ? byId.get(parent) : undefined;
      i = p !== undefined && p !== i ? p : undefined;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const c = chain[k];
      const parent = spans[c].parentSpanId;
      const p = parent ? byId.get(parent) : undefined;
      // a parent not in the file (or on a cycle still being walked) is compared by its id as written
      const parentKey = p !== undefined && state[p] === 2 ? `=${canonical[p]}` : `~${parent ?? ''}`;
      settle(c, parentKey);
    }
  }
  return keptOf;
}
