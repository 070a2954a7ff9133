/**
 * Support of an output by its inputs: does a step state a value (a number) that its own inputs
 * gave differently? Used by blame (blame.ts) to trace a failed run's answer back to the step that
 * first passed on a value contrary to what it was given (a tool result said $4.2 billion, the
 * message passed on $2.4 billion).
 *
 * Values are numbers (`4.2`, `30,000`, `2023`) as salient tokens (text.ts) read them. A value is in
 * the same *slot* as another when they are of one kind (a year, a figure with decimals, a whole count;
 * one-digit numbers are list markers and never values) and the words around them agree: the content
 * words and numbers within {@link SPAN} tokens on either side share at least {@link SHARED} tokens,
 * one of them a word ("revenue ... 2023 ... billion"). Only an agent's message-like output (not its
 * code) passes a value on. Inputs of a step = its causal ancestors (TraceIndex links: causes, parent, tool call ->
 * result, delivery, lane, message order), the nearest {@link WINDOW} of them.
 * Cost per step asked: O(WINDOW · values²), each event tokenized once (blame asks only the steps where
 * a value of the final answer entered the run).
 */
import type { TraceIndex } from './trace-index';
import { operandsOf } from './derivation';
import { canonicalValue, stripLogNoise, withoutFencedCode } from './text';

/** Tokens on either side of a value that make its slot (default). */
export const SPAN = 6;
/** Slot tokens two values must share to be in the same slot (default). */
export const SHARED = 2;

/** The slot's size and agreement, for the evaluation's cross-validation (npm run eval); defaults {@link SPAN}, {@link SHARED}. */
export interface SupportOptions {
  span?: number;
  shared?: number;
}
/** Causal ancestors looked at per step. */
export const WINDOW = 32;

const TOKEN = /[A-Za-z][A-Za-z'’-]{2,}|\d[\d,.]*/g;
const STOP_WORDS = new Set(
  'the and for with that this from are was were have has been will would can could should into our your their its not but all any each which what when where who how than then them they there these those also only more most some such very just over under about after before between during here now however therefore thus since was per'.split(' '),
);

/** A value and the tokens of its slot. */
interface Value {
  value: string;
  kind: 'year' | 'decimal' | 'integer';
  slot: Set<string>;
}

const YEAR = /^(1[89]|20)\d\d$/;
/** Dates (`01/01/2018`, `2018-01-01`, `1.1.2018`) and clock times (`10:05`, `10:05:30`). */
const DATE_OR_TIME = /\b\d{1,4}([/-])\d{1,2}\1\d{1,4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b/g;

/** The kind of quantity a number can be: a year, a figure with decimals, a whole count; only values of one kind compare. */
function kindOf(value: string): Value['kind'] {
  return YEAR.test(value) ? 'year' : value.includes('.') ? 'decimal' : 'integer';
}

const isWord = (t: string) => t.charCodeAt(0) > 57;

/** Reads the values of a text with their slots (fenced code and log noise left out). */
function valuesOf(text: string, span: number): Value[] {
  // a date or a time ("01/01/2018", "2018-01-01", "10:05") is no figure: its parts ("01") are not values
  const prose = stripLogNoise(withoutFencedCode(text)).slice(0, 4000).replace(DATE_OR_TIME, ' ');
  const tokens: string[] = [];
  for (const m of prose.matchAll(TOKEN)) {
    const w = m[0].replace(/[.,]+$/, '').toLowerCase();
    if (w && !STOP_WORDS.has(w)) tokens.push(w);
  }
  const out: Value[] = [];
  tokens.forEach((t, k) => {
    const c = t.charCodeAt(0);
    if (c < 48 || c > 57 || t.length < 2) return; // one digit: a list marker or a small count, no figure
    const slot = new Set<string>();
    for (let j = Math.max(0, k - span); j <= Math.min(tokens.length - 1, k + span); j++) if (j !== k && tokens[j] !== t) slot.add(tokens[j]);
    out.push({ value: t, kind: kindOf(t), slot });
  });
  return out;
}

/** Lazily tokenized values per position of one index. */
export class ValueReader {
  private readonly cache = new Map<number, Value[]>();
  private readonly span: number;
  private readonly shared: number;
  constructor(
    private readonly index: TraceIndex,
    options: SupportOptions = {},
  ) {
    this.span = options.span ?? SPAN;
    this.shared = options.shared ?? SHARED;
  }

  values(i: number): Value[] {
    let v = this.cache.get(i);
    if (!v) this.cache.set(i, (v = valuesOf(this.index.content(i), this.span)));
    return v;
  }

  /** The nearest {@link WINDOW} causal ancestors of position i, nearest first (breadth-first over incoming links). */
  ancestors(i: number): number[] {
    const seen = new Set<number>([i]);
    const out: number[] = [];
    let frontier = [i];
    while (frontier.length && out.length < WINDOW) {
      const next: number[] = [];
      for (const v of frontier) for (const u of this.index.parents(v)) if (!seen.has(u)) {
        seen.add(u);
        out.push(u);
        next.push(u);
        if (out.length >= WINDOW) break;
      }
      frontier = next;
    }
    return out;
  }

  /**
   * The first of the values stated at position i (those `wanted` accepts, given as written) that an
   * input of i gave differently: a different number in the same slot. Numbers are compared as values
   * (text.ts `canonicalValue`: `1,520` = `1520`). Values an input also states are supported, never
   * contrary; and a value i computed from an input's number (derivation.ts `operandsOf`, the operands
   * stated in i) does not contradict it: `1,250 units × $24 = $30,000` is another quantity than the
   * 1,250 it read. The input value reported is the one the step replaced: of those in the slot, one
   * the step does not state itself, then the one whose slot shares the most tokens, then the nearest
   * input.
   * @returns `{ value, was, input }` (input = position of the ancestor), or undefined.
   */
  contrary(i: number, wanted: (value: string) => boolean): { value: string; was: string; input: number } | undefined {
    const own = this.values(i);
    const mine = own.filter((v) => wanted(v.value));
    if (mine.length === 0) return undefined;
    const ownValues = own.map((v) => canonicalValue(v.value));
    const inputs = this.ancestors(i);
    const stated = new Set<string>();
    for (const u of inputs) for (const v of this.values(u)) stated.add(canonicalValue(v.value));
    for (const v of mine) {
      const value = canonicalValue(v.value);
      if (stated.has(value)) continue;
      const operands = operandsOf(value, ownValues);
      // of the input values in the same slot, the one the step replaced: one it does not state itself, then the slot most alike, then the nearest input
      let best: { was: string; input: number; score: number } | undefined;
      for (const u of inputs) for (const w of this.values(u)) {
        const was = canonicalValue(w.value);
        if (was === value || w.kind !== v.kind || operands.has(was)) continue;
        let shared = 0;
        let words = 0;
        for (const s of v.slot) if (w.slot.has(s)) {
          shared++;
          if (isWord(s)) words++;
        }
        if (shared < this.shared || words < 1) continue;
        const score = (ownValues.includes(was) ? 0 : 1000) + shared;
        if (!best || score > best.score) best = { was: w.value, input: u, score };
      }
      if (best) return { value: v.value, was: best.was, input: best.input };
    }
    return undefined;
  }
}
