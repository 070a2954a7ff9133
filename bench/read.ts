/**
 * Read + validate throughput of the otrace JSONL reader on a generated 100k-event trace, beside a
 * bare JSON.parse of the same lines in the same run (the floor any JSONL reader pays).
 */
import { readTraceJsonl } from '../src/trace/read';
import { fmt, medianMs } from './_util';

/** A deterministic JSONL trace of `n` events over 8 agents, with an edge every 4 events. */
export function generateJsonl(n: number): string {
  const lines = [JSON.stringify({ trace_id: 'bench', task_id: 'bench', system: 'generated' })];
  const types = ['delegate', 'message', 'tool_call', 'tool_result', 'return'];
  for (let i = 0; i < n; i++) {
    const agent = `agent_${i % 8}`;
    lines.push(JSON.stringify({ id: `e${i}`, t: i * 0.01, type: types[i % types.length], agent, to: `agent_${(i + 1) % 8}`, tool: 'search', content: `step ${i} of the run: looked up item ${i % 97}`, tokens: 50 + (i % 200) }));
    if (i % 4 === 3) lines.push(JSON.stringify({ edge: { src: `e${i - 1}`, dst: `e${i}`, type: 'causal' } }));
  }
  return lines.join('\n') + '\n';
}

export async function bench(): Promise<void> {
  const n = 100_000;
  const text = generateJsonl(n);
  const mb = Buffer.byteLength(text) / 1e6;
  const parseMs = medianMs(() => {
    for (const line of text.split('\n')) if (line) JSON.parse(line);
  });
  let events = 0;
  let problems = 0;
  const readMs = medianMs(() => {
    const loaded = readTraceJsonl(text);
    events = loaded.trace.events.length;
    problems = loaded.problems.length;
  });
  console.log(`generated JSONL: ${fmt(n, 0)} events, ${fmt(mb)} MB (${problems} problems, ${fmt(events, 0)} loaded)`);
  console.log(`JSON.parse of the lines : ${fmt(parseMs)} ms  ${fmt(mb / (parseMs / 1000))} MB/s`);
  console.log(`read + validate (otrace): ${fmt(readMs)} ms  ${fmt(mb / (readMs / 1000))} MB/s  ${fmt(n / (readMs / 1000), 0)} events/s`);
  console.log(`ratio read+validate / JSON.parse: ${fmt(readMs / parseMs, 2)}x`);
}
