/**
 * Import throughput of the backend and framework span-export importers (Jaeger, Zipkin, Langfuse,
 * Phoenix, LangSmith, OpenAI Agents SDK, agent-observability documents) on about 10 MB per format,
 * beside a bare JSON.parse of the same text in the same run (the floor; the importers also find
 * each record's place: one JSON.parse to check the text, a lazy position scan down to the records,
 * src/trace/json-positions.ts).
 *
 * Input: each format's fixture in test/fixtures/<format>/ (written from the format's documentation,
 * see SOURCE.md), its span records repeated until the text reaches the target: in one document for
 * the single-document formats, as more lines for JSON Lines. Each copy's ids (every string value
 * equal to a span / run / observation id of the fixture) get the suffix `c<copy>`, so parents
 * resolve within their copy, as in one long trace.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAgentOps } from '../src/trace/importers/agentops';
import { readJaeger } from '../src/trace/importers/jaeger';
import { readLangfuse } from '../src/trace/importers/langfuse';
import { readLangSmith } from '../src/trace/importers/langsmith';
import { readOpenAiAgents } from '../src/trace/importers/openai-agents';
import { readPhoenix } from '../src/trace/importers/phoenix';
import { readZipkin } from '../src/trace/importers/zipkin';
import type { LoadedTrace } from '../src/trace/model';
import { fmt, medianMs } from './_util';

const TARGET_BYTES = 10e6;
const FIXTURES = path.join(__dirname, '..', 'test', 'fixtures');

type Json = unknown;

/** A deep copy of `v` where every string in `ids` gets `suffix`. */
function renamed(v: Json, ids: Set<string>, suffix: string): Json {
  if (typeof v === 'string') return ids.has(v) ? v + suffix : v;
  if (Array.isArray(v)) return v.map((x) => renamed(x, ids, suffix));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renamed(x, ids, suffix)]));
  return v;
}

/** `records` repeated (ids renamed per copy) until their JSON reaches about `bytes`. */
function replicate(records: Json[], ids: Set<string>, bytes: number, indent?: number): Json[] {
  const size = Buffer.byteLength(JSON.stringify(records, null, indent));
  const copies = Math.max(1, Math.round(bytes / size));
  const out: Json[] = [];
  for (let k = 0; k < copies; k++) for (const r of records) out.push(k === 0 ? r : renamed(r, ids, `c${k}`));
  return out;
}

const read = (...p: string[]) => fs.readFileSync(path.join(FIXTURES, ...p), 'utf8');
const lines = (t: string) => t.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

function report(name: string, text: string, jsonl: boolean, readFn: (t: string, f: string) => LoadedTrace): { mbs: number; ratio: number } {
  const mb = Buffer.byteLength(text) / 1e6;
  let events = 0;
  const importMs = medianMs(() => {
    events = readFn(text, name).trace.events.length;
  }, 3);
  const parseMs = medianMs(() => {
    if (jsonl) for (const l of text.split('\n')) l.trim() && JSON.parse(l);
    else JSON.parse(text);
  }, 3);
  console.log(`${name}: ${fmt(mb)} MB, ${fmt(events, 0)} events`);
  console.log(`  JSON.parse              : ${fmt(parseMs)} ms  ${fmt(mb / (parseMs / 1000))} MB/s`);
  console.log(`  import                  : ${fmt(importMs)} ms  ${fmt(mb / (importMs / 1000))} MB/s  ${fmt(events / (importMs / 1000), 0)} events/s`);
  console.log(`  ratio import / JSON.parse: ${fmt(importMs / parseMs, 2)}x`);
  return { mbs: mb / (importMs / 1000), ratio: importMs / parseMs };
}

export async function bench(): Promise<void> {
  console.log(`input: test/fixtures/<format> replicated to ~${fmt(TARGET_BYTES / 1e6, 0)} MB per format`);
  const rows: [string, { mbs: number; ratio: number }][] = [];

  const jaeger = JSON.parse(read('jaeger', 'agents.jaeger.json'));
  const jSpans = jaeger.data[0].spans as Record<string, unknown>[];
  jaeger.data[0].spans = replicate(jSpans, new Set(jSpans.map((s) => s.spanID as string)), TARGET_BYTES, 2);
  rows.push(['Jaeger JSON', report('jaeger', JSON.stringify(jaeger, null, 2), false, readJaeger)]);

  const zipkin = JSON.parse(read('zipkin', 'agents.zipkin.json')) as Record<string, unknown>[];
  rows.push(['Zipkin v2 JSON', report('zipkin', JSON.stringify(replicate(zipkin, new Set(zipkin.map((s) => s.id as string)), TARGET_BYTES)), false, readZipkin)]);

  const langfuse = JSON.parse(read('langfuse', 'trace.langfuse.json'));
  const obs = langfuse.observations as Record<string, unknown>[];
  langfuse.observations = replicate(obs, new Set(obs.map((o) => o.id as string)), TARGET_BYTES);
  rows.push(['Langfuse trace', report('langfuse', JSON.stringify(langfuse), false, readLangfuse)]);

  const phoenix = lines(read('phoenix', 'spans.phoenix.jsonl'));
  const pIds = new Set(phoenix.map((s) => (s.context as Record<string, string>).span_id));
  rows.push(['Phoenix JSONL', report('phoenix', replicate(phoenix, pIds, TARGET_BYTES).map((r) => JSON.stringify(r)).join('\n') + '\n', true, readPhoenix)]);

  const runs = lines(read('langsmith', 'runs.langsmith.jsonl'));
  rows.push(['LangSmith runs JSONL', report('langsmith', replicate(runs, new Set(runs.map((r) => r.id as string)), TARGET_BYTES).map((r) => JSON.stringify(r)).join('\n') + '\n', true, readLangSmith)]);

  const agents = lines(read('openai-agents', 'trace.openai-agents.jsonl'));
  rows.push(['OpenAI Agents JSONL', report('openai-agents', replicate(agents, new Set(agents.map((r) => r.id as string)), TARGET_BYTES).map((r) => JSON.stringify(r)).join('\n') + '\n', true, readOpenAiAgents)]);

  const ops = JSON.parse(read('agentops', 'trace.agentops.json'));
  const oSpans = ops.spans as Record<string, unknown>[];
  ops.spans = replicate(oSpans, new Set(oSpans.map((s) => s.span_id as string)), TARGET_BYTES);
  rows.push(['AgentOps-style document', report('agentops', JSON.stringify(ops), false, readAgentOps)]);

  console.log('\n| format | import MB/s | × JSON.parse |\n|---|---|---|');
  for (const [name, r] of rows) console.log(`| ${name} | ${fmt(r.mbs)} | ${fmt(r.ratio, 1)} |`);
}
