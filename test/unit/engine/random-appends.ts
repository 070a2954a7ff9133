/**
 * Random otrace JSONL traces for the tests of growing traces (structure-growth, overview-delta):
 * agents that spawn, message and delegate, tool calls and results paired by `parent`, `causes` or
 * the time order, nested spans, stops, equal times, now and then an event out of time order, a new
 * agent, an edge, a second trace.
 */
import fc from 'fast-check';

/** One random record's choices; {@link traceLines} makes a line of them. */
export interface Choice {
  kind: 'event' | 'edge';
  agent: number;
  type: number;
  tool: number;
  back: number;
  /** 0: next time, 1: the same time, 2: a long pause, 3: earlier than the last (rare). */
  when: number;
  link: number;
  /** A new agent (rare), another trace (rarer). */
  odd: number;
}

const AGENTS = ['orchestrator', 'worker_a', 'worker_b'];
const TYPES = ['spawn', 'delegate', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'return', 'message', 'stop', 'llm_call', 'message'] as const;
const TOOLS = ['bash', 'search'];

export const choice: fc.Arbitrary<Choice> = fc.record({
  kind: fc.oneof({ weight: 25, arbitrary: fc.constant('event' as const) }, { weight: 1, arbitrary: fc.constant('edge' as const) }),
  agent: fc.nat(AGENTS.length - 1),
  type: fc.nat(TYPES.length - 1),
  tool: fc.nat(TOOLS.length - 1),
  back: fc.nat(6),
  when: fc.oneof({ weight: 40, arbitrary: fc.constant(0) }, { weight: 10, arbitrary: fc.constant(1) }, { weight: 4, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.constant(3) }),
  link: fc.nat(5),
  odd: fc.oneof({ weight: 80, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
});

/** The lines of a trace made of the choices: a header, then one line per record. */
export function traceLines(choices: readonly Choice[]): string[] {
  const lines = [JSON.stringify({ trace_id: 'grow', task_id: 'random', system: 'test' })];
  let n = 0;
  let t = 0;
  const calls: number[] = [];
  for (const c of choices) {
    if (c.kind === 'edge') {
      if (n < 2) continue;
      // mostly between recent events (the destination up to three events back: a piece appended later may bring an edge to an event read before); with `link` 0 a spawn edge
      lines.push(JSON.stringify({ edge: { src: `e${Math.max(0, n - 2 - c.back)}`, dst: `e${Math.max(1, n - 1 - (c.back % 4))}`, type: c.link === 0 ? 'spawn' : c.link === 1 ? 'tool_dependency' : 'causal' } }));
      continue;
    }
    const type = TYPES[c.type];
    const agent = c.odd === 1 ? `agent_${n}` : AGENTS[c.agent];
    t = c.when === 0 ? t + 1 : c.when === 1 ? t : c.when === 2 ? t + 500 : Math.max(0, t - 2.5);
    const e: Record<string, unknown> = { id: `e${n}`, t, type, agent };
    if (c.odd === 2) e.trace_id = 'other';
    if (type === 'tool_call' || type === 'tool_result') e.tool = TOOLS[c.tool];
    if (type === 'spawn' || type === 'delegate' || type === 'message') e.to = AGENTS[(c.agent + 1 + (c.link % 2)) % AGENTS.length];
    if (type === 'return') e.to = 'orchestrator';
    if (type === 'tool_result' && calls.length && c.link < 3) {
      // names its call: by parent or by causes (sometimes an unknown one)
      const call = calls[Math.max(0, calls.length - 1 - (c.back % 3))];
      if (c.link === 0) e.parent = `e${call}`;
      else if (c.link === 1) e.causes = [`e${call}`];
      else e.parent = `e${n + 2}`;
    } else if (n > 0 && c.link === 4) e.parent = `e${Math.max(0, n - 1 - c.back)}`; // nested in an earlier event (a span when it lasts)
    if (type === 'llm_call' && c.link === 5) e.duration_s = 3;
    if (type === 'stop') e.reason = 'task_complete';
    else e.content = `${type} ${n}`;
    if (type === 'tool_call') calls.push(n);
    lines.push(JSON.stringify(e));
    n++;
  }
  return lines;
}

