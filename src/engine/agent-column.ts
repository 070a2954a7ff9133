/**
 * Each event's agent as a number (issue #30 "Any shape, bounded"): the agents of a trace numbered
 * once in order of first appearance, so what counts, orders or groups agents (the summary's agent
 * count, the lanes and their folds) works on an Int32Array instead of making a string key, a Map
 * entry or an object per agent at each step. A trace of 1M events each its own agent has 1M
 * agents: numbered here once per events array and shared. Pure: no `vscode`.
 */
import { KeyTable, SMALL } from '../trace/key-table';
import type { TraceEvent } from '../trace/schema';

/** The agents of a list of events, numbered 0 .. count - 1 in order of first appearance. */
export interface AgentColumn {
  /** Per event (file order): the number of its agent. */
  of: Int32Array;
  /** The number of agents. */
  count: number;
  /** Per agent number: the index of its first event (its name is that event's `agent`). */
  first: Int32Array;
  /** Agent number -> its name (the events' `agent` value as it is). */
  name(a: number): string;
  /** Agent name -> its number, undefined for a name no event has as its agent. */
  numberOf(name: string): number | undefined;
}

/** The column of each events array, with the length it was made for (an array that grew is numbered again). */
const columns = new WeakMap<readonly TraceEvent[], { n: number; column: AgentColumn }>();

/**
 * The {@link AgentColumn} of `events`, made once per array (kept while the array lives; made again
 * when its length changed). O(n) for n events: one lookup per event; past a few thousand agents in
 * a table of integers that reads the agents' names from their first events ({@link KeyTable}: no
 * Map entry, string list or object per agent; about 20 bytes per agent outside the heap, and 8 per event).
 */
export function agentColumn(events: readonly TraceEvent[]): AgentColumn {
  const known = columns.get(events);
  if (known && known.n === events.length) return known.column;
  const n = events.length;
  const of = new Int32Array(n);
  const firsts = new Int32Array(n);
  const numbers = new KeyTable((a) => events[firsts[a]].agent);
  let count = 0;
  // most neighbours share their agent (an agent's turn): one comparison instead of a lookup then
  let last: string | undefined;
  let lastNo = -1;
  for (let i = 0; i < n; i++) {
    const agent = events[i].agent;
    if (lastNo >= 0 && agent === last) {
      of[i] = lastNo;
      continue;
    }
    let k = numbers.get(agent);
    if (k === undefined) {
      firsts[count] = i;
      numbers.set(agent, (k = count++));
    }
    of[i] = k;
    last = agent;
    lastNo = k;
  }
  // the table reads names through `firsts` past a few thousand agents: kept whole then; else only the agents' own
  const first = count > SMALL ? firsts.subarray(0, count) : firsts.slice(0, count);
  const column: AgentColumn = { of, count, first, name: (a) => events[first[a]].agent, numberOf: count > SMALL ? memoised((name) => numbers.get(name)) : (name) => numbers.get(name) };
  columns.set(events, { n, column });
  return column;
}

/** Names whose number {@link memoised} keeps at most. */
const MEMO_NAMES = 4_096;

/**
 * `numberOf` of a table past a few thousand agents, the answers for the first
 * {@link MEMO_NAMES} names asked kept in a Map: the names events send to (`to`) are asked again
 * and again (each spawn, delegation, message and return), and a Map finds a string by the hash the
 * string keeps, where the table hashes it again each time.
 */
function memoised(numberOf: (name: string) => number | undefined): (name: string) => number | undefined {
  const memo = new Map<string, number>();
  return (name) => {
    const known = memo.get(name);
    if (known !== undefined) return known < 0 ? undefined : known;
    const a = numberOf(name);
    if (memo.size < MEMO_NAMES) memo.set(name, a ?? -1);
    return a;
  };
}
