/**
 * The derivation of a run's final answer: the positions where the values it was computed from
 * entered the run, traced back step by step (blame.ts, contrary-input rule).
 *
 * A value (a salient token, text.ts: a number or a name) entered the run at the first position that
 * states it. The step that produced it is that position, or for a tool's output the agent output that
 * asked for it (blame.ts `responsible`: the code run, the search made). A number was computed from
 * two numbers that step states when one of + − × ÷ (or a share in percent) of them gives it, to the precision it is written
 * with ({@link operandsOf}), among the numbers of the line that states it (a calculation writes
 * its operands beside its result: `1,520 units × $24 = $36,480` was computed from 1,520 and 24) or,
 * for a tool's output, among the numbers of the call (`print(round(321 / 4.8, 1))` printed 66.9
 * from 321 and 4.8). Numbers in links and paths are addresses, never operands; the figures a step
 * merely states elsewhere (a web page's other numbers, a report's context) are not its operands. Each
 * operand entered the run somewhere too (earlier, or in the same step when the step read it itself)
 * and is followed back the same way until no new value is met, so a figure misread three steps
 * before the answer is on the answer's derivation although the answer never repeats it.
 * The answer's own values are matched as the tokens they are (as the contrary-input rule always
 * did); operands, found as numbers, are matched as numbers (text.ts `canonicalValue`: the `1520` of
 * code is the `1,520` of a message). One-digit numbers (list markers, small counts) can take part in
 * a calculation but are never followed, nor are the task's own facts. Names are followed only as
 * values of the answer itself (a name is not computed).
 *
 * Cost: one scan of the positions up to the answer, then one per level of operands (at most
 * {@link MAX_LEVELS}) up to the last step that computed them; at most {@link MAX_VALUES} values
 * followed, each step's numbers paired at most {@link MAX_OPERANDS} at a time.
 */
import { MAX_TEXT, canonicalValue, forEachSalientToken } from './text';
import type { TraceIndex } from './trace-index';

/** Levels of operands followed back from the answer (the answer's own values are level 0). */
export const MAX_LEVELS = 6;
/** Values followed at most (the answer's and all operands'). */
export const MAX_VALUES = 64;

/** A position where values of the answer's derivation entered the run. */
export interface DerivationOrigin {
  /** Values of the answer itself that entered the run here (salient tokens as written, lower case). */
  answer: Set<string>;
  /** Numbers the answer was computed from that entered the run here (canonical, text.ts `canonicalValue`). */
  operands: Set<string>;
  /**
   * For the operands: the steps from here to the answer, positions of the steps that computed, in
   * turn, a value from one entered here, nearest first (of the first operand placed here).
   */
  via: number[];
}

/** True when a value stated at an origin (a salient token as written) is one of the answer's derivation that entered the run there. */
export function entered(origin: DerivationOrigin, value: string): boolean {
  return origin.answer.has(value) || origin.operands.has(canonicalValue(value));
}

/** A number written as digits with at most one decimal point (a canonical value, text.ts `canonicalValue`). */
const NUMBER = /^\d+(?:\.\d+)?$/;
/** A number that is followed back: two digits or more (`24`, `4.8`; not a list marker `3`). */
const isOperand = (v: string) => NUMBER.test(v) && v.replace('.', '').length >= 2;
/** Numbers of one text tried as operands at most (pairs: quadratic). */
export const MAX_OPERANDS = 120;

/**
 * The numbers among `numbers` that `value` was computed from: the two of a pair (different
 * values, neither `value` itself) whose sum, difference, product or quotient (or quotient in
 * percent, 100·a/b) is `value` to the precision it is written with (half a unit of its last digit: 66.875 is 66.9, 36,480 is 36480 ± 0.5).
 * @param value a canonical number (text.ts `canonicalValue`); anything else has no operands
 * @param numbers canonical values (words and other tokens are ignored; the first {@link MAX_OPERANDS} numbers are tried)
 * @returns the operands, canonical, in no particular order (empty when no pair gives it)
 */
export function operandsOf(value: string, numbers: Iterable<string>): Set<string> {
  const out = new Set<string>();
  if (!NUMBER.test(value)) return out;
  const v = Number(value);
  const decimals = value.includes('.') ? value.length - value.indexOf('.') - 1 : 0;
  const tolerance = 0.5 * 10 ** -decimals + 1e-9 * Math.abs(v);
  const xs: [string, number][] = [];
  const seen = new Set<string>([value]);
  for (const n of numbers) {
    if (seen.has(n) || !NUMBER.test(n)) continue;
    seen.add(n);
    xs.push([n, Number(n)]);
    if (xs.length >= MAX_OPERANDS) break;
  }
  const near = (r: number) => Math.abs(r - v) <= tolerance;
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) {
      const a = xs[i][1];
      const b = xs[j][1];
      const ratio = b !== 0 && (near(a / b) || near((100 * a) / b));
      if (near(a + b) || near(Math.abs(a - b)) || near(a * b) || ratio || (a !== 0 && (near(b / a) || near((100 * b) / a)))) {
        out.add(xs[i][0]);
        out.add(xs[j][0]);
      }
    }
  return out;
}

/**
 * The origins of the values the final answer at `answerPos` was derived from (see the module's
 * comment for how values are matched and what an operand is).
 * @param wanted the answer's values (salient tokens; the task's facts already left out)
 * @param given true for a canonical value the task gave (never followed)
 * @param responsible the step responsible for a position (itself, or the call that asked for a tool's output), or -1
 * @param levels levels followed, the answer's own values being the first (default {@link MAX_LEVELS}; 1: the answer's values only, as before derivations were followed)
 * @returns origin position -> what entered there
 */
export function answerDerivation(index: TraceIndex, answerPos: number, wanted: ReadonlySet<string>, given: (value: string) => boolean, responsible: (i: number) => number, levels = MAX_LEVELS): Map<number, DerivationOrigin> {
  const origins = new Map<number, DerivationOrigin>();
  const originAt = (pos: number, via: number[]) => {
    let origin = origins.get(pos);
    if (!origin) origins.set(pos, (origin = { answer: new Set(), operands: new Set(), via }));
    else if (origin.operands.size === 0) origin.via = via;
    return origin;
  };
  const followed = new Set<string>(); // canonical values whose origin was looked for
  // the numbers a value at `pos` (canonical) was computed from, for the next level, with their path to the answer
  const next = new Map<string, number[]>();
  let lastStep = -1; // operands are stated at or before the step that computed from them
  const computedFrom = (value: string, pos: number, via: number[]) => {
    if (!isOperand(value)) return; // a name is not computed
    const step = responsible(pos);
    if (step < 0) return;
    // a result the step's own text states was computed on its line; a tool's output, from the call's whole text (its code)
    const numbers = step === pos ? numbersBeside(index.content(pos), value) : numbersOf(index.content(step));
    for (const u of operandsOf(value, numbers)) {
      if (!isOperand(u) || given(u) || followed.has(u) || next.has(u) || followed.size + next.size >= MAX_VALUES) continue;
      lastStep = Math.max(lastStep, step);
      next.set(u, via[0] === step ? via : [step, ...via]); // a step that computed twice is one step of the path
    }
  };
  // level 0: the answer's own values, as written
  for (const t of wanted) followed.add(canonicalValue(t));
  for (const [t, pos] of firstPositions(index, answerPos, wanted, (x) => x)) {
    originAt(pos, []).answer.add(t);
    computedFrom(canonicalValue(t), pos, []);
  }
  // then the numbers they were computed from, as numbers, level by level
  for (let depth = 1; depth < levels && next.size > 0; depth++) {
    const level = new Map(next);
    const last = Math.min(lastStep, answerPos);
    next.clear();
    lastStep = -1;
    for (const v of level.keys()) followed.add(v);
    for (const [v, pos] of firstPositions(index, last, new Set(level.keys()), canonicalValue)) {
      const via = level.get(v)!;
      originAt(pos, via).operands.add(v);
      computedFrom(v, pos, via);
    }
  }
  return origins;
}

/** Links and paths: the digits of a URL or a file path are an address, not a quantity. */
const ADDRESS = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+|(?:^|\s)\/[\w.-]+\/\S+/gi;

/** The numbers of a text as values (canonical), its links and paths left out; the first {@link MAX_TEXT} characters. */
function numbersOf(text: string): string[] {
  const out: string[] = [];
  forEachSalientToken(text.slice(0, MAX_TEXT).replace(ADDRESS, ' '), (t) => {
    const v = canonicalValue(t);
    if (NUMBER.test(v)) out.push(v);
  });
  return out;
}

/** The numbers (canonical) of the lines of a text that state `value`: a calculation writes its operands beside its result (`3 × $8.25 = $24.75`). */
function numbersBeside(text: string, value: string): string[] {
  const out: string[] = [];
  for (const line of text.slice(0, MAX_TEXT).split('\n')) {
    const numbers = numbersOf(line);
    if (numbers.includes(value)) out.push(...numbers);
  }
  return out;
}

/** The first position in [0, last] stating each of `values` (compared as `key` makes a salient token); values never stated are left out. */
function firstPositions(index: TraceIndex, last: number, values: ReadonlySet<string>, key: (token: string) => string): Map<string, number> {
  const at = new Map<string, number>();
  for (let i = 0; i <= last && at.size < values.size; i++)
    for (const t of index.salientOnce(i)) {
      const v = key(t);
      if (values.has(v) && !at.has(v)) at.set(v, i);
    }
  return at;
}
