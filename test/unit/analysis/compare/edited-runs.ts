/**
 * Runs and copies of them with known edits, for the comparison's property tests: a lead agent
 * delegating rounds to workers (delegate, tool call, tool result, return), a stop at the end, every
 * content made of words no other event uses (numbers would be normalized away), and a copy with
 * one edit per chosen round (rounds at least two apart, so that untouched steps lie between edits
 * in every lane): an event removed, inserted or changed, a tool call repeated (a loop), the stop
 * moved earlier; a worker renamed, maybe. It says what a comparison must find.
 */
import type { LoadedTrace } from '../../../../src/trace/model';
import type { TraceEvent } from '../../../../src/trace/schema';
import { traceOf } from '../build';

export type Edit = 'remove' | 'insert' | 'change' | 'loop' | 'move_stop' | 'count';

/** What the copy differs by, as a comparison of (base, copy) must report it. */
export interface Expected {
  only_in_a: string[];
  only_in_b: string[];
  changed: [string, string][];
  moved: [string, string][];
  /** Where the first divergence is (Difference.at) and its events. */
  first: { at: number; a: string | null; b: string | null } | null;
  /** [old name, new name] when a worker was renamed. */
  renamed: [string, string] | null;
  loop: boolean;
}

/** A word no other call of this function gives (letters only: `baa`, `bab`, …). */
function wordMaker(): () => string {
  let k = 0;
  return () => {
    let n = k++;
    let w = '';
    do {
      w = String.fromCharCode(97 + (n % 26)) + w;
      n = Math.floor(n / 26);
    } while (n > 0);
    return `w${w}x`;
  };
}

/** An event without its time (`t` is its position). */
export type Ev = Pick<TraceEvent, 'id' | 'type' | 'agent'> & Partial<Pick<TraceEvent, 'to' | 'tool' | 'content' | 'reason'>>;

/** The base run: `rounds` rounds over `workers` workers, then the lead's stop. Event ids e0, e1, …; positions = time ranks. */
export function baseRun(rounds: number, workers: number, word = wordMaker()): Ev[] {
  const text = () => `${word()} ${word()} ${word()}`;
  const out: Ev[] = [];
  let id = 0;
  for (let r = 0; r < rounds; r++) {
    const w = `worker_${r % workers}`;
    out.push({ id: `e${id++}`, type: 'delegate', agent: 'lead', to: w, content: `please ${text()}` });
    out.push({ id: `e${id++}`, type: 'tool_call', agent: w, tool: 'search', content: text() });
    out.push({ id: `e${id++}`, type: 'tool_result', agent: w, tool: 'search', content: text() });
    out.push({ id: `e${id++}`, type: 'return', agent: w, to: 'lead', content: text() });
  }
  out.push({ id: `e${id++}`, type: 'stop', agent: 'lead', reason: 'task_complete', content: `done ${text()}` });
  return out;
}

/** A loaded trace of the events, `t` = position. */
export function loadedOf(events: Ev[]): LoadedTrace {
  return traceOf(events.map((e, i) => ({ ...e, t: i })) as TraceEvent[]);
}

/**
 * `events` with what differs between two runs that do the same thing added to every content: a
 * duration, a timestamp, a commit id and a temporary folder made from `salt` and the event's place
 * (other in another run), and a count made from the event's id (the same in every run, so a
 * `count` edit is the only way it differs): `… [3 failed] in 0.41s at 2026-02-23T12:40:07Z commit
 * 9f3c2ab1 /tmp/tmpq81x/log`.
 */
export function withNoise(events: Ev[], salt: number): Ev[] {
  return events.map((e, i) => {
    if (typeof e.content !== 'string') return e;
    const base = e.content.replace(/ \[\d+ failed\].*$/, '');
    const count = e.content.match(/\[(\d+) failed\]/)?.[1] ?? String(Number(e.id.replace(/\D/g, '') || 0) % 9);
    const r = (salt * 7919 + i * 104729) >>> 0;
    const two = (x: number) => String(x % 60).padStart(2, '0');
    return { ...e, content: `${base} [${count} failed] in ${r % 9}.${r % 97}s at 2026-02-${two((r % 27) + 1)}T12:${two(r >>> 3)}:${two(r >>> 7)}Z commit c${(r * 2654435761 >>> 0).toString(16).padStart(8, 'a')}9 /tmp/tmp${r.toString(36)}/log` };
  });
}

/**
 * The copy of `base` with `edits` applied at `rounds` (one edit per round, rounds at least 2
 * apart; `move_stop` only at a round with 3 or more rounds after it), maybe a worker renamed.
 * @param pick a number in [0, 1) per choice (from the property's random source).
 */
export function editedCopy(base: Ev[], plan: { round: number; edit: Edit; pick: number }[], rename: string | null): { copy: Ev[]; expected: Expected } {
  const word = (() => {
    let k = 0;
    return () => `new${String.fromCharCode(97 + (k % 26))}${String.fromCharCode(97 + Math.floor(k++ / 26))}zz`;
  })();
  const expected: Expected = { only_in_a: [], only_in_b: [], changed: [], moved: [], first: null, renamed: null, loop: false };
  // B as a list of slots per A position: what comes in B at and after A's event p
  const at: Ev[][] = base.map((e) => [{ ...e }]);
  const firsts: { at: number; a: string | null; b: string | null }[] = [];
  let fresh = 0;
  const stopPos = base.length - 1;
  for (const { round, edit, pick } of plan) {
    const p = 4 * round + Math.floor(pick * 4); // one of the round's events
    const e = base[p];
    if (edit === 'remove') {
      at[p] = at[p].filter((x) => x.id !== e.id);
      expected.only_in_a.push(e.id);
      firsts.push({ at: p, a: e.id, b: null });
    } else if (edit === 'change') {
      at[p] = at[p].map((x) => (x.id === e.id ? { ...x, content: `${word()} ${word()}` } : x));
      expected.changed.push([e.id, e.id]);
      firsts.push({ at: p, a: e.id, b: e.id });
    } else if (edit === 'count') {
      // only the count of a content noised by withNoise (one more failed)
      at[p] = at[p].map((x) => (x.id === e.id ? { ...x, content: String(x.content).replace(/\[(\d+) failed\]/, (_, k: string) => `[${Number(k) + 1} failed]`) } : x));
      expected.changed.push([e.id, e.id]);
      firsts.push({ at: p, a: e.id, b: e.id });
    } else if (edit === 'insert') {
      const agent = pick < 0.5 ? 'lead' : `worker_${round % 4}`;
      const ins: Ev = { id: `n${fresh++}`, type: 'message', agent: base.some((x) => x.agent === agent) ? agent : 'lead', content: `${word()} ${word()} ${word()}` };
      at[p].push(ins);
      expected.only_in_b.push(ins.id);
      firsts.push({ at: p + 0.5, a: null, b: ins.id });
    } else if (edit === 'loop') {
      const call = base[4 * round + 1];
      const result = base[4 * round + 2];
      const copies: Ev[] = [];
      for (let k = 0; k < 2; k++) copies.push({ ...call, id: `n${fresh++}` }, { ...result, id: `n${fresh++}` });
      at[4 * round + 2].push(...copies);
      expected.only_in_b.push(...copies.map((c) => c.id));
      expected.loop = true;
      firsts.push({ at: 4 * round + 2 + 0.5, a: null, b: copies[0].id });
    } else {
      const stop = base[stopPos];
      at[stopPos] = at[stopPos].filter((x) => x.id !== stop.id);
      at[4 * round].push({ ...stop });
      expected.moved.push([stop.id, stop.id]);
      firsts.push({ at: 4 * round + 0.5, a: stop.id, b: stop.id });
    }
  }
  let copy = at.flat();
  if (rename) {
    const old = 'worker_0';
    copy = copy.map((e) => ({ ...e, ...(e.agent === old ? { agent: rename } : {}), ...(e.to === old ? { to: rename } : {}) }));
    expected.renamed = [old, rename];
  }
  firsts.sort((x, y) => x.at - y.at);
  expected.first = firsts[0] ?? null;
  return { copy, expected };
}
