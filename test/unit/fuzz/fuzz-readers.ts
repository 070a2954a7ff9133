/**
 * Fuzzing of every registered reader and importer (and the mapping reader and mapping files), called directly (below `loadTrace`'s
 * last-resort guard, so an exception fails here instead of being caught there): seeded fast-check
 * runs of random truncations, byte flips, invalid UTF-8, line splits and record shuffles of the
 * fixtures, plus generated cycle-heavy and 10,000-agent inputs. Each result must hold: no
 * exception, origins index for index with events, every problem's and origin's range inside the
 * file. Run as a child process by readers.test.ts (a hang fails it by timeout).
 *
 * Environment: OTRACE_FUZZ_SEED (default 11), OTRACE_FUZZ_RUNS per fixture (default 20).
 * Prints one line `fuzz: N runs, seed S, T ms` on success; exits 1 with the counterexample otherwise.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { listFormats, type FileAccess, type TraceFormat } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { LineIndex, OriginArray, originsOf, type LoadedTrace, type Range } from '../../../src/trace/model';
import { parseMapping, readWithMapping } from '../../../src/trace/mapping';
import { apply, FUZZ_CASES as CASES, mutation } from './mutations';

const SEED = Number(process.env.OTRACE_FUZZ_SEED ?? 11);
const RUNS = Number(process.env.OTRACE_FUZZ_RUNS ?? 20);
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');

/** The mapping reader with test/fixtures/mapping/crew.otrace-map.json, as a format. */
const MAPPING_READER: TraceFormat = (() => {
  const { mapping } = parseMapping(fs.readFileSync(path.join(FIXTURES, 'mapping', 'crew.otrace-map.json'), 'utf8'), 'crew.otrace-map.json');
  if (!mapping) throw new Error('the fixture mapping has errors');
  return { id: 'mapping', label: 'mapping', detect: () => true, read: (t, f) => readWithMapping(t, f, mapping) };
})();

const NO_FILES: FileAccess = { readText: () => undefined, list: () => undefined };

function formatById(id: string): TraceFormat {
  if (id === 'mapping') return MAPPING_READER;
  const f = listFormats().find((x) => x.id === id);
  if (!f) throw new Error(`no reader ${id}`);
  return f;
}

/** Throws when the loaded trace breaks an invariant for `text`. */
function check(loaded: LoadedTrace, text: string, what: string): void {
  const lines = new LineIndex(text);
  const lengths: number[] = [];
  for (let l = 0; l < lines.lineCount; l++) {
    const start = lines.lineStart(l);
    const end = l + 1 < lines.lineCount ? lines.lineStart(l + 1) - 1 : text.length;
    lengths.push(end - start);
  }
  const inside = (r: Range, label: string) => {
    for (const p of [r.start, r.end]) {
      if (!(p.line >= 0 && p.line < lines.lineCount && p.character >= 0 && p.character <= lengths[p.line] + 1)) {
        throw new Error(`${what}: ${label} range ${JSON.stringify(r)} outside the file (${lines.lineCount} lines)`);
      }
    }
    if (r.start.line > r.end.line || (r.start.line === r.end.line && r.start.character > r.end.character)) throw new Error(`${what}: ${label} range ends before it starts`);
  };
  if (loaded.eventOrigins.length !== loaded.trace.events.length) throw new Error(`${what}: ${loaded.eventOrigins.length} origins for ${loaded.trace.events.length} events`);
  for (const p of loaded.problems) if (p.file === undefined) inside(p.range, `problem "${p.message.slice(0, 80)}"`);
  originsOf(loaded.eventOrigins).forEach((o, i) => {
    if (o && o.file === undefined) inside(o.range, `origin of event ${i}`);
  });
  for (const e of loaded.trace.events) if (typeof e.id !== 'string' || typeof e.t !== 'number' || !Number.isFinite(e.t) || e.t < 0) throw new Error(`${what}: bad event ${JSON.stringify(e).slice(0, 120)}`);
}

/** Generated heavy inputs: parent cycles, self-parents, a deep chain, 10,000 agents. */
function heavyInputs(): [string, string, string][] {
  const out: [string, string, string][] = [];
  const span = (id: number, parent: number | undefined, agent: string, op = 'invoke_agent') => ({
    traceId: 'ab'.repeat(16),
    spanId: id.toString(16).padStart(16, '0'),
    parentSpanId: parent === undefined ? '' : parent.toString(16).padStart(16, '0'),
    name: `${op} ${agent}`,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id) * 1000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id) * 1000n + 500n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: op } }, { key: 'gen_ai.agent.name', value: { stringValue: agent } }, ...(id % 7 === 0 ? [{ key: 'gen_ai.usage.input_tokens', value: { intValue: '3' } }] : [])],
  });
  const doc = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  // one cycle of 2,000 spans, 300 self-parents, a 3,000-deep chain
  const cyc: unknown[] = [];
  for (let i = 1; i <= 2000; i++) cyc.push(span(i, i === 1 ? 2000 : i - 1, `c${i % 50}`));
  for (let i = 2001; i <= 2300; i++) cyc.push(span(i, i, `s${i}`));
  for (let i = 2301; i <= 5300; i++) cyc.push(span(i, i === 2301 ? undefined : i - 1, 'deep', 'chat'));
  out.push(['otel-genai', 'cycles.json', doc(cyc)]);
  // 10,000 agents under one root, in OTLP and in otrace JSONL
  const wide: unknown[] = [span(1, undefined, 'root')];
  for (let i = 2; i <= 10_001; i++) wide.push(span(i, 1, `agent-${i}`));
  out.push(['otel-genai', 'wide.json', doc(wide)]);
  const jsonl = [JSON.stringify({ trace_id: 'wide' })];
  for (let i = 0; i < 10_000; i++) jsonl.push(JSON.stringify({ id: `s${i}`, t: i / 1000, type: 'spawn', agent: 'root', to: `a${i}` }), JSON.stringify({ id: `m${i}`, t: i / 1000 + 0.0005, type: 'message', agent: `a${i}`, content: 'x', causes: [`s${i}`, `m${(i * 7919) % 10_000}`] }));
  out.push(['otrace-jsonl', 'wide.otrace.jsonl', jsonl.join('\n')]);
  return out;
}

const started = Date.now();
let runs = 0;
for (const [id, rel] of CASES) {
  const text = fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
  const format = formatById(id);
  const lineCount = text.split('\n').length;
  fc.assert(
    fc.property(mutation(text.length, lineCount), (m) => {
      runs++;
      const t = apply(text, m);
      check(format.read(t, rel, NO_FILES), t, `${id} ${rel} ${m.kind}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
}
// Mapping files themselves: parseMapping never throws, and its problems lie inside the mapping file.
for (const rel of ['mapping/crew.otrace-map.json', 'mapping/wrong.otrace-map.json']) {
  const text = fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
  fc.assert(
    fc.property(mutation(text.length, text.split('\n').length), (m) => {
      runs++;
      const t = apply(text, m);
      const { problems } = parseMapping(t, rel);
      check({ format: 'mapping', trace: { events: [], edges: [] }, eventOrigins: new OriginArray(), edgeOrigins: new OriginArray(), problems: problems.map((p) => ({ ...p, file: undefined })) }, t, `mapping file ${rel} ${m.kind}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
}
for (const [id, name, text] of heavyInputs()) {
  const t0 = Date.now();
  check(formatById(id).read(text, name, NO_FILES), text, `${id} ${name}`);
  runs++;
  process.stdout.write(`heavy ${name}: ${text.length} chars in ${Date.now() - t0} ms\n`);
}
process.stdout.write(`fuzz: ${runs} runs, seed ${SEED}, ${Date.now() - started} ms\n`);
