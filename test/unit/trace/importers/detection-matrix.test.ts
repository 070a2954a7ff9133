/**
 * Detection that never collides: every trace fixture of every format (test/fixtures/**) is accepted
 * by exactly one registered detector, and that detector is the format the fixture's folder stands for;
 * the ordinary JSON files of test/fixtures/not-traces are accepted by none.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { listFormats } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { decodeText } from '../../../../src/trace/text-encoding';
import { FIXTURES } from '../../helpers';

/**
 * Files under test/fixtures that no built-in detector should take: provenance notes, generators, the
 * survey's JSON Schema, the in-house format (and its mapping files) read only through a mapping, and
 * the files of a Kimi session folder beside its wire (a sub-agent's meta.json, state.json; a Kimi Code
 * session's state.json),
 * and those of a Claude Code session folder beside its transcripts (sidecars, a Workflow's journal and run file).
 */
const NOT_TRACES = /(SOURCE\.md|\.py|\.labels\.jsonl|survey[\\/]trace_schema\.json|mapping[\\/].*|prompts[\\/].*\.md)$|^not-traces[\\/]|^kimi[\\/].*[\\/](meta|state)\.json$|^kimi-code[\\/].*[\\/]state\.json$|^codex-trace-bundle[\\/].*[\\/]payloads[\\/]|^claude-code[^\\/]*[\\/].*(\.meta\.json|[\\/]journal\.jsonl|[\\/]workflows[\\/]wf_[^\\/]*\.json)$/;

/** The format a fixture folder holds (folders with several formats: by file). */
function expectedFormat(rel: string): string | undefined {
  const dir = rel.split(/[\\/]/)[0];
  const byDir: Record<string, string> = {
    jaeger: 'jaeger', zipkin: 'zipkin', langfuse: 'langfuse', phoenix: 'phoenix', langsmith: 'langsmith', 'openai-agents': 'openai-agents', agentops: 'agentops',
    otel: 'otel-genai', codex: 'codex', 'codex-trace-bundle': 'codex-trace-bundle', kimi: 'kimi', 'kimi-code': 'kimi-code', 'claude-code': 'claude-code', 'who-and-when': 'who-and-when', survey: 'otrace-json',
    'gemini-cli': 'gemini-cli',
  };
  if (dir === 'kimi') return /[\\/]context\.jsonl$/.test(rel) ? 'kimi-context' : 'kimi';
  if (byDir[dir]) return byDir[dir];
  if (dir === 'broken') return rel.endsWith('.jsonl') ? 'otrace-jsonl' : 'otrace-json';
  // GitHub Copilot: CLI session logs (session-state/<id>/events.jsonl) and OpenTelemetry files
  if (dir === 'copilot') return /[\\/]events\.jsonl$/.test(rel) ? 'copilot-cli' : 'otel-genai';
  return undefined; // cases/, mast/ and encodings/ hold several formats: only "exactly one" is checked
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('detection matrix: every fixture is accepted by exactly one detector, the one of its format', () => {
  // The path below test/fixtures: a checkout in a folder named like "wt-mapping" must not count as a mapping folder.
  const files = walk(FIXTURES).filter((f) => !NOT_TRACES.test(path.relative(FIXTURES, f)));
  assert.ok(files.length > 40, `${files.length} fixtures`);
  const formats = listFormats();
  const wrong: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const rel = path.relative(FIXTURES, f);
    const text = decodeText(fs.readFileSync(f)).text; // encodings/ holds UTF-16 and UTF-32 copies
    const accepted = formats.filter((x) => x.detect(text, f)).map((x) => x.id);
    const want = expectedFormat(rel);
    if (accepted.length !== 1 || (want && accepted[0] !== want)) wrong.push(`${rel}: ${JSON.stringify(accepted)}${want ? ` (want ${want})` : ''}`);
    accepted.forEach((a) => seen.add(a));
  }
  assert.deepEqual(wrong, []);
  // Every registered format has at least one fixture.
  assert.deepEqual(formats.map((x) => x.id).filter((id) => !seen.has(id)), []);
});

test('detection matrix: no detector takes the ordinary JSON files of not-traces/', () => {
  const files = walk(path.join(FIXTURES, 'not-traces')).filter((f) => !f.endsWith('SOURCE.md'));
  assert.ok(files.length >= 5, `${files.length} files`);
  const taken = files.flatMap((f) => listFormats().filter((x) => x.detect(fs.readFileSync(f, 'utf8'), f)).map((x) => `${path.basename(f)}: ${x.id}`));
  assert.deepEqual(taken, []);
});

test('detection matrix: in a Kimi session folder the wires are kimi traces, context.jsonl a kimi-context one, meta.json and state.json none', () => {
  const files = walk(path.join(FIXTURES, 'kimi'));
  const taken = (f: string) => listFormats().filter((x) => x.detect(fs.readFileSync(f, 'utf8'), f)).map((x) => x.id);
  const others = files.filter((f) => /(meta|state)\.json$/.test(f));
  assert.ok(others.length >= 3, `${others.length} files`);
  assert.deepEqual(others.flatMap((f) => taken(f).map((id) => `${path.relative(FIXTURES, f)}: ${id}`)), []);
  const contexts = files.filter((f) => f.endsWith('context.jsonl'));
  assert.ok(contexts.length >= 3, `${contexts.length} context files`);
  assert.deepEqual(contexts.map((f) => taken(f)), contexts.map(() => ['kimi-context']));
  const wires = files.filter((f) => f.endsWith('wire.jsonl'));
  assert.deepEqual(wires.map((f) => taken(f)), wires.map(() => ['kimi']));
});

test('detection matrix: in a Claude Code session folder only the transcripts are traces (sidecars, Workflow journals and run files are taken by no detector)', () => {
  const files = walk(path.join(FIXTURES, 'claude-code-layouts'));
  const taken = (f: string) => listFormats().filter((x) => x.detect(fs.readFileSync(f, 'utf8'), f)).map((x) => x.id);
  const others = files.filter((f) => /(\.meta\.json|journal\.jsonl|[\\/]wf_[^\\/]*\.json)$/.test(f));
  assert.ok(others.length >= 5, `${others.length} files`);
  assert.deepEqual(others.flatMap((f) => taken(f).map((id) => `${path.relative(FIXTURES, f)}: ${id}`)), []);
  const transcripts = files.filter((f) => /[\\/]agent-[^\\/]*\.jsonl$|[\\/][0-9a-f-]{36}\.jsonl$/.test(f));
  assert.ok(transcripts.length >= 8, `${transcripts.length} transcripts`);
  assert.deepEqual(transcripts.map((f) => taken(f)), transcripts.map(() => ['claude-code']));
});
