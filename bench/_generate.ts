/**
 * The deterministic trace generator of the benchmarks: an orchestrator delegating to 20 workers
 * that call tools (some calls repeated, some stuck in a retry loop), return results, with process
 * rewards and turn-level stops. The same seed gives the same trace, byte for byte.
 *
 * - {@link generateRecords}: the records one by one (events and edges), for any size;
 * - {@link generateTrace}: a LoadedTrace in memory (the analysis benches);
 * - {@link writeTraceFile}: an otrace JSONL file on disk, written in chunks (1M events and more),
 *   after checking the free space.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OriginArray, type LoadedTrace, type Origin } from '../src/trace/model';
import type { TraceEdge, TraceEvent } from '../src/trace/schema';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'search', 'result', 'table', 'value', 'check', 'plan', 'fix', 'build', 'report', 'Paris', 'Lyon', 'Berlin', '2023', '42', '3.14'];

/** A deterministic pseudo-random generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Options of the generator. */
export interface GenerateOptions {
  seed?: number;
  /** One tool result in 8 carries long output (2-10 KB: a log, a file), as real coding agents' do. */
  longContent?: boolean;
  /** A turn-level stop every this many rounds (default 1,000). */
  stopEvery?: number;
  /** {@link writeTraceFile}: exactly `n` events (the last round cut short), not at least `n`. */
  exact?: boolean;
  /**
   * Every event its own agent (issue #30 "Any shape, bounded"): the agent of event `e123` by worker
   * `worker_3` is `worker_3#e123`, so 1M events make 1M lanes (names share the prefix of the agent
   * they stand for; `to` still names the plain agents, which then have no lane).
   */
  agentPerEvent?: boolean;
}

/** Blocks of long tool output (a build log, a file listing), picked per result after its own first line. */
function longBlocks(seed: number): string[] {
  const rand = rng(seed ^ 0x5bd1e995);
  return Array.from({ length: 32 }, (_, b) => {
    const lines: string[] = [];
    const count = 40 + Math.floor(rand() * 160);
    for (let k = 0; k < count; k++) lines.push(`${String(k + 1).padStart(4)} | ${WORDS[Math.floor(rand() * WORDS.length)]}_${b}_${k} = ${Math.floor(rand() * 1e6)} ${WORDS[Math.floor(rand() * WORDS.length)]} ${'.'.repeat(Math.floor(rand() * 40))}`);
    return lines.join('\n');
  });
}

/** The records of a trace of about `n` events (at least `n`), in file order: events and their edges. */
export function* generateRecords(n: number, options: GenerateOptions = {}): Generator<{ event: TraceEvent } | { edge: TraceEdge }> {
  const rand = rng(options.seed ?? 1);
  const blocks = options.longContent ? longBlocks(options.seed ?? 1) : [];
  const text = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  let t = 0;
  let id = 0;
  let count = 0;
  const event = (e: Omit<TraceEvent, 'id' | 't'>, dt = 0.5): TraceEvent => {
    const ev = { id: `e${id}`, t, ...e } as TraceEvent;
    if (options.agentPerEvent) ev.agent = `${e.agent}#e${id}`;
    id++;
    t += dt;
    count++;
    return ev;
  };
  const workers = Array.from({ length: 20 }, (_, i) => `worker_${i}`);
  for (const w of workers) yield { event: event({ type: 'spawn', agent: 'orchestrator', to: w, tokens: 10 }) };
  let round = 0;
  while (count < n) {
    round++;
    const w = workers[round % workers.length];
    const d = event({ type: 'delegate', agent: 'orchestrator', to: w, content: `task ${round}: ${text(12)}`, tokens: 80 });
    yield { event: d };
    const stuck = round % 97 === 0;
    const calls = stuck ? 6 : 1 + Math.floor(rand() * 3);
    let last = d.id;
    for (let k = 0; k < calls; k++) {
      const args = stuck ? 'retry the same failing build' : rand() < 0.05 ? 'git status' : `query ${round}.${k} ${text(6)}`;
      const c = event({ type: 'tool_call', agent: w, tool: stuck ? 'bash' : 'search', content: args, tokens: 40, causes: [last] }, 0.1);
      yield { event: c };
      let output = stuck ? 'error: build failed' : `found ${text(20)}`;
      if (options.longContent && !stuck && (round * 7 + k) % 8 === 0) output += `\n${blocks[(round * 7 + k) % blocks.length]}`;
      const r = event({ type: 'tool_result', agent: w, tool: stuck ? 'bash' : 'search', content: output, tokens: 200, duration_s: 0.3 }, 0.4);
      yield { event: r };
      yield { edge: { src: c.id, dst: r.id, type: 'return' } };
      last = r.id;
    }
    const ret = event({ type: 'return', agent: w, to: 'orchestrator', content: `done ${round}: ${text(15)}`, tokens: 120, causes: [last] });
    yield { event: ret };
    if (round % 50 === 0) yield { event: event({ type: 'aggregate', agent: 'orchestrator', content: `summary ${round}: ${text(25)}`, tokens: 300, causes: [ret.id] }) };
    if (round % 100 === 0) yield { event: event({ type: 'reward', agent: 'judge', value: Math.min(1, round / (n / 6)), channel: 'team', target: ret.id }) };
    if (round % (options.stopEvery ?? 1000) === 0) yield { event: event({ type: 'stop', agent: 'orchestrator', reason: 'task_complete' }) };
  }
}

/** A generated trace of about `n` events in memory, with one origin per event (line i), and a stop every `stopEvery` rounds. */
export function generateTrace(n: number, seed = 1, stopEvery = 1000): LoadedTrace {
  const events: TraceEvent[] = [];
  const edges: TraceEdge[] = [];
  for (const r of generateRecords(n, { seed, stopEvery })) {
    if ('event' in r) events.push(r.event);
    else edges.push(r.edge);
  }
  const eventOrigins: Origin[] = events.map((_, i) => ({ range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, record: i }));
  return { format: 'generated', trace: { trace_id: 'bench', events, edges }, eventOrigins: new OriginArray(eventOrigins), edgeOrigins: new OriginArray(edges.map(() => undefined)), problems: [] };
}

/** Bytes per event of the generated JSONL, to check the free space before writing (an upper bound of what was measured). */
const BYTES_PER_EVENT = { short: 300, long: 1_000 };

/**
 * Writes the generated trace of `n` events as otrace JSONL (a header line, one line per event, an
 * `{"edge": ...}` line per edge) to `file`, in chunks; does nothing when the file is already there
 * with a size written by the same generator (`file.done` marker). Throws when the disk has less
 * than twice the expected size free (so a bench never fills the disk).
 * @returns the file's size in bytes.
 */
export function writeTraceFile(file: string, n: number, options: GenerateOptions = {}): number {
  const marker = `${file}.done`;
  if (fs.existsSync(marker) && fs.existsSync(file) && fs.readFileSync(marker, 'utf8') === String(fs.statSync(file).size)) return fs.statSync(file).size;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const expected = n * (options.longContent ? BYTES_PER_EVENT.long : BYTES_PER_EVENT.short);
  const free = (() => {
    const s = fs.statfsSync(path.dirname(file));
    return s.bavail * s.bsize;
  })();
  if (free < 2 * expected) throw new Error(`not enough free space in ${path.dirname(file)} for a ${n}-event trace: ${Math.round(free / 1e6)} MB free, ${Math.round((2 * expected) / 1e6)} MB wanted`);
  const fd = fs.openSync(file, 'w');
  let size = 0;
  try {
    let chunk: string[] = [JSON.stringify({ trace_id: `bench-${n}`, task_id: 'bench', system: 'generated' })];
    let chars = 0;
    let events = 0;
    const flush = () => {
      const buf = Buffer.from(`${chunk.join('\n')}\n`, 'utf8');
      fs.writeSync(fd, buf);
      size += buf.length;
      chunk = [];
      chars = 0;
    };
    for (const r of generateRecords(n, options)) {
      if ('event' in r && options.exact && events++ === n) break;
      const line = JSON.stringify(r);
      chunk.push('event' in r ? JSON.stringify(r.event) : line);
      chars += line.length;
      if (chars > 4 << 20) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(marker, String(size));
  return size;
}
