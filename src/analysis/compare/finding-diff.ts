/**
 * The findings of one run that the other run does not share (issue 28): loops, stop verdicts,
 * verification failures and blame. A finding of A is shared when B has a finding of the same kind
 * (and, for stops, the same verdict) on an event aligned with one of its events (the same step,
 * changed or moved: lane-diff.ts); each finding of B is shared with one finding of A at most.
 * Plain turn and phase ends and hindsight best stops are left out: they are no verdict.
 * Pure; linear in the findings' events.
 */
import type { Finding } from '../types';
import type { FindingOnOneSide } from './types';

/** True for the findings compared: problems, and sound stops (a verdict one run may lack). */
export function compared(f: Finding): boolean {
  if (f.kind === 'best_stop') return false;
  if (f.kind === 'stop') return f.mode !== 'ok' || f.sound === true;
  return true;
}

/**
 * The findings of A and of B that the other run does not share.
 * @param toB the index of the B event aligned with an A event index, or -1; `toA` the other way.
 */
export function findingsOnOneSide(a: readonly Finding[], b: readonly Finding[], toB: (i: number) => number): { only_in_a: FindingOnOneSide[]; only_in_b: FindingOnOneSide[] } {
  const fa = a.filter(compared);
  const fb = b.filter(compared);
  const matchedB = new Set<number>();
  const onlyA: FindingOnOneSide[] = [];
  for (const f of fa) {
    const mapped = new Set<number>();
    for (const i of f.events) {
      const j = toB(i);
      if (j !== -1) mapped.add(j);
    }
    const k = fb.findIndex((g, k) => !matchedB.has(k) && sameKind(f, g) && g.events.some((j) => mapped.has(j)));
    if (k === -1) onlyA.push(oneSide(f));
    else matchedB.add(k);
  }
  return { only_in_a: onlyA, only_in_b: fb.filter((_, k) => !matchedB.has(k)).map(oneSide) };
}

function sameKind(f: Finding, g: Finding): boolean {
  return f.kind === g.kind && (f.kind !== 'stop' || (f.mode === g.mode && f.sound === g.sound));
}

function oneSide(f: Finding): FindingOnOneSide {
  return { kind: f.kind, severity: f.severity, message: f.message, event: f.ids[0], index: f.events[0], ...(f.kind === 'stop' ? { mode: f.mode } : {}) };
}
