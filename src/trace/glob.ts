/**
 * File-name globs of mapping files (`files.glob`, the `otrace.mappings` setting): `*`, `?`, `**`.
 * Its own module, with no imports, so the extension host can match globs without the readers.
 *
 * Globs come from workspace files, so matching must never take long whatever the glob: a glob is
 * compiled to a small automaton (Thompson's construction) and simulated over the path, which takes
 * O(path length × glob length) steps, with runs of wildcards collapsed; no backtracking. (The
 * RegExp this replaced took exponential time: 20 `*` before a letter against a 40-character name
 * did not finish in 20 s.) Globs longer than {@link MAX_GLOB_LENGTH} are refused.
 */

/** Longest glob accepted (characters); a longer one is refused ({@link globProblem}) and matches nothing. */
export const MAX_GLOB_LENGTH = 500;

/**
 * Why a glob cannot be used, or undefined when it can: an empty glob or one longer than
 * {@link MAX_GLOB_LENGTH} characters. The message names no part of the glob (callers position it).
 */
export function globProblem(glob: string): string | undefined {
  if (!glob.length) return 'a glob must not be empty';
  if (glob.length > MAX_GLOB_LENGTH) return `a glob must be at most ${MAX_GLOB_LENGTH} characters long, not ${glob.length}`;
  return undefined;
}

/**
 * One piece of a glob: a character (`/` and `\` both stand for "a folder separator"), `?` (one
 * character but a separator), `*` (any run of characters but separators), `**` (any run of
 * characters) or `**\/` (nothing, or any run of characters that ends with a separator).
 */
type Token = { kind: 'char'; c: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' } | { kind: 'folders' };

const isSep = (c: string) => c === '/' || c === '\\';

/**
 * The glob as tokens, read as the RegExp translation always read it (`**\/` first, then `**`, then
 * `*`, each left to right), then runs of wildcards collapsed where the shorter one matches the same
 * paths: `**` beside `*`, `**` or `**\/` is `**`; `**\/**\/` is `**\/`.
 */
function tokens(glob: string): Token[] {
  const out: Token[] = [];
  const push = (t: Token) => {
    const last = out[out.length - 1];
    const wild = (x: Token | undefined) => x !== undefined && (x.kind === 'star' || x.kind === 'globstar' || x.kind === 'folders');
    if (wild(last) && wild(t)) {
      if (last!.kind === 'globstar' || t.kind === 'globstar') {
        out[out.length - 1] = { kind: 'globstar' };
        return;
      }
      if (last!.kind === 'folders' && t.kind === 'folders') return;
    }
    out.push(t);
  };
  glob.split(/(\*\*[/\\])/).forEach((part, i) => {
    if (i % 2 === 1) return push({ kind: 'folders' });
    part.split(/(\*\*)/).forEach((piece, j) => {
      if (j % 2 === 1) return push({ kind: 'globstar' });
      for (const c of piece) push(c === '*' ? { kind: 'star' } : c === '?' ? { kind: 'one' } : { kind: 'char', c: isSep(c) ? '/' : c });
    });
  });
  return out;
}

/**
 * A node of the automaton: one that `takes` a character (TAKES_CHAR: the character `code`) goes to
 * `next`; one without is a split to `next` and `alt` (no character consumed); the last node accepts.
 */
interface NfaNode {
  takes?: number;
  code?: number;
  next: number;
  alt?: number;
}

/**
 * The automaton of "the path ends with a match of the glob that starts at the path's start or after
 * a separator": an implied leading `**\/`, then the glob's tokens.
 */
function compile(glob: string): NfaNode[] {
  const nodes: NfaNode[] = [];
  const add = (n: NfaNode) => nodes.push(n) - 1;
  const list: Token[] = [{ kind: 'folders' }, ...tokens(glob)];
  if (list[1]?.kind === 'folders' || list[1]?.kind === 'globstar') list.shift();
  for (const t of list) {
    const here = nodes.length;
    switch (t.kind) {
      case 'char': {
        add({ takes: TAKES_CHAR, code: t.c.codePointAt(0)!, next: here + 1 });
        break;
      }
      case 'one':
        add({ takes: TAKES_NOT_SEP, next: here + 1 });
        break;
      case 'star':
      case 'globstar':
        // here: split (loop at here + 1, or go on at here + 2); here + 1: one character, back to here.
        add({ next: here + 1, alt: here + 2 });
        add({ takes: t.kind === 'star' ? TAKES_NOT_SEP : TAKES_ANY, next: here });
        break;
      case 'folders':
        // here: split (skip to here + 4, or enter the loop); here + 1: split (one more character, or the closing separator)
        add({ next: here + 1, alt: here + 4 });
        add({ next: here + 2, alt: here + 3 });
        add({ takes: TAKES_ANY, next: here + 1 });
        add({ takes: TAKES_CHAR, code: SEP, next: here + 4 });
        break;
    }
  }
  add({ next: -1 }); // accept
  return nodes;
}

/** What a consuming node takes: one given character, any character but a separator, any character. */
const TAKES_CHAR = 0;
const TAKES_NOT_SEP = 1;
const TAKES_ANY = 2;
const SEP = 0x2f; // '/'

/**
 * The automaton in flat arrays for the simulation: per node, what it takes (-1: a split or the
 * accepting node), the character code, the node after it; and per node, its closure (the consuming
 * or accepting nodes reachable from it without consuming a character), flattened.
 */
interface Automaton {
  takes: Int8Array;
  code: Int32Array;
  next: Int32Array;
  closureStart: Int32Array;
  closure: Int32Array;
  accept: number;
}

function closureOf(nodes: NfaNode[], i: number): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  const stack = [i];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const node = nodes[n];
    if (node.takes !== undefined || node.next < 0) {
      out.push(n);
      continue;
    }
    stack.push(node.next);
    if (node.alt !== undefined) stack.push(node.alt);
  }
  return out;
}

function automatonOf(nodes: NfaNode[]): Automaton {
  const closures = nodes.map((_, i) => closureOf(nodes, i));
  const closureStart = new Int32Array(nodes.length + 1);
  closures.forEach((c, i) => (closureStart[i + 1] = closureStart[i] + c.length));
  return {
    takes: Int8Array.from(nodes, (n) => n.takes ?? -1),
    code: Int32Array.from(nodes, (n) => n.code ?? 0),
    next: Int32Array.from(nodes, (n) => n.next),
    closureStart,
    closure: Int32Array.from(closures.flat()),
    accept: nodes.length - 1,
  };
}

/** Simulates the automaton over `path` (both separators as `/`): each step visits each live node once. */
function run(a: Automaton, path: string): boolean {
  const size = a.takes.length;
  const stamp = new Int32Array(size);
  let live = new Int32Array(size);
  let next = new Int32Array(size);
  let liveCount = 0;
  for (let k = a.closureStart[0]; k < a.closureStart[1]; k++) live[liveCount++] = a.closure[k];
  let step = 0;
  for (let i = 0; i < path.length; i++) {
    let c = path.codePointAt(i)!;
    if (c > 0xffff) i++;
    if (c === 0x5c) c = SEP; // '\'
    step++;
    let nextCount = 0;
    for (let j = 0; j < liveCount; j++) {
      const n = live[j];
      const takes = a.takes[n];
      if (takes === TAKES_CHAR ? a.code[n] !== c : takes === TAKES_NOT_SEP ? c === SEP : takes !== TAKES_ANY) continue;
      const to = a.next[n];
      for (let k = a.closureStart[to]; k < a.closureStart[to + 1]; k++) {
        const m = a.closure[k];
        if (stamp[m] === step) continue;
        stamp[m] = step;
        next[nextCount++] = m;
      }
    }
    if (!nextCount) return false;
    [live, next] = [next, live];
    liveCount = nextCount;
  }
  for (let j = 0; j < liveCount; j++) if (live[j] === a.accept) return true;
  return false;
}

/** Compiled globs, by glob (a few dozen at most in practice; the cache is cleared when it grows past this). */
const CACHE_LIMIT = 256;
const cache = new Map<string, Automaton | null>();

function compiled(glob: string): Automaton | null {
  let automaton = cache.get(glob);
  if (automaton === undefined) {
    automaton = globProblem(glob) ? null : automatonOf(compile(glob));
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(glob, automaton);
  }
  return automaton;
}

/**
 * True when `fileName` (a path) matches `glob` over its last segments: `*.log.jsonl` matches the
 * file name, `runs/*.jsonl` a file in any `runs` folder, `**\/x.jsonl` x.jsonl in any folder. `*`
 * and `?` stay inside one folder, `**` crosses folders; `/` and `\` are both separators, in the glob
 * and in the path; every other character stands for itself. A glob {@link globProblem} refuses
 * matches nothing. Time: O(path length × glob length), whatever the glob.
 */
export function globMatches(glob: string, fileName: string): boolean {
  const automaton = compiled(glob);
  return automaton !== null && run(automaton, fileName);
}
