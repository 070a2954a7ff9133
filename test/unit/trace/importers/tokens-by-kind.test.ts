/**
 * Tokens by kind, each model call once, and an event's tokens its own: a Claude Code message whose
 * model call wrote 1 token over a context of ~40,000 cached tokens has `tokens` 1 and its call's
 * `usage` by kind (input, output, cache read, cache write); the trace's totals by kind count each
 * API message once and are what the importer sums in `trace.costs`; the CLI, the hover and the
 * details pane show the kinds, never one number made mostly of cache reads. Real sessions, each in
 * three variants (sub-agent type renamed, ignored records interleaved, text reworded).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statsLines } from '../../../../src/cli/stats';
import { hoverFigures } from '../../../../src/host/editor/hover-text';
import { graphEvent } from '../../../../src/engine/graph-window';
import { eventInfo } from '../../../../src/engine/queries';
import { makeSnapshot } from '../../../../src/engine/snapshot';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import type { LoadedTrace } from '../../../../src/trace/model';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { traceStats } from '../../../../src/trace/stats';
import { tokenTotals } from '../../../../src/trace/tokens';
import { fixture, fixturePath } from '../../helpers';

type Json = Record<string, any>;

/** Each line of a JSONL text through `f` (lines that are not JSON kept as they are). */
function perRecord(text: string, f: (r: Json) => Json[]): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (!line.trim()) return [line];
      let r: Json;
      try {
        r = JSON.parse(line);
      } catch {
        return [line];
      }
      return f(r).map((x) => JSON.stringify(x));
    })
    .join('\n');
}

const VARIANTS: Record<string, (text: string) => string> = {
  original: (t) => t,
  renamed: (t) => t.replace(/"subagent_type":"(\w+)"/g, '"subagent_type":"Scout$1"').replace(/\b(Plan|Explore)\b/g, 'Scout$1'),
  // a hook progress record (shown nowhere) after every assistant record
  noise: (t) => perRecord(t, (r) => (r.type === 'assistant' ? [r, { type: 'progress', uuid: `${r.uuid}-p`, parentUuid: r.uuid, timestamp: r.timestamp, sessionId: r.sessionId, isSidechain: r.isSidechain, data: { type: 'hook_progress', hookEvent: 'PostToolUse' } }] : [r])),
  reworded: (t) =>
    perRecord(t, (r) => {
      const content = r.message?.content;
      if (Array.isArray(content)) for (const b of content) if (b?.type === 'text' && typeof b.text === 'string') b.text = `To put it another way: ${b.text.replace(/\bthe\b/g, 'that')}`;
      return [r];
    }),
};

/** Per API message id: its usage with the most output tokens (the final snapshot of a streamed message), from the raw records. */
function rawUsages(text: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const line of text.split('\n')) {
    let r: Json;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    const m = r.message;
    if (r.type !== 'assistant' || !m?.usage || r.isApiErrorMessage || m.model === '<synthetic>') continue;
    const prev = out.get(m.id);
    if (!prev || (m.usage.output_tokens ?? 0) >= (prev.output_tokens ?? 0)) out.set(m.id, m.usage);
  }
  return out;
}

const SESSIONS: { name: string; path: string[]; files: boolean }[] = [
  { name: 'a session with a Plan sub-agent (mirrored records only)', path: ['claude-code', 'subagent.jsonl'], files: false },
  { name: 'a whole session with two Explore sub-agents and a compaction', path: ['claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'], files: true },
];

function check(loaded: LoadedTrace, text: string): void {
  const events = loaded.trace.events;
  const called = events.filter((e) => e.usage !== undefined);
  assert.ok(called.length > 5, `model calls with usage: ${called.length}`);
  // an event's tokens are its own: the output of its call, never its context
  for (const e of called) assert.equal(e.tokens, e.usage!.output, `${e.id}: tokens ${e.tokens}, usage ${JSON.stringify(e.usage)}`);
  // each main-lane API message once, by kind, as recorded
  const raw = rawUsages(text);
  const mainCalls = called.filter((e) => e.agent === 'main' && typeof e.model_call === "string" && raw.has(e.model_call as string));
  assert.ok(mainCalls.length >= 5, `main-lane calls matched to their raw usage: ${mainCalls.length}`);
  for (const e of mainCalls) {
    const u = raw.get(e.model_call as string)!;
    const hour = u.cache_creation?.ephemeral_1h_input_tokens;
    assert.deepEqual(e.usage, { input: u.input_tokens, output: u.output_tokens, cache_read: u.cache_read_input_tokens, cache_write: u.cache_creation_input_tokens, ...(hour ? { cache_write_1h: hour } : {}) });
  }
  // the trace's totals by kind count each call once: the importer's own sums per kind
  const totals = tokenTotals(events);
  const costs = loaded.trace.costs as Record<string, number>;
  assert.deepEqual(
    [totals.by_kind.input, totals.by_kind.output, totals.by_kind.cache_read, totals.by_kind.cache_write, totals.total],
    [costs.input_tokens, costs.output_tokens, costs.cache_read_input_tokens, costs.cache_creation_input_tokens, costs.tokens],
  );
  // a reply of 1 token over a large cached context: 1 token of its own, the context shown by kind
  const tiny = called.find((e) => e.usage!.output === 1 && (e.usage!.cache_read ?? 0) > 10_000);
  assert.ok(tiny, 'a model call that wrote 1 token over a cached context');
  const snap = makeSnapshot('k', 1, 'session.jsonl', loaded);
  const index = events.indexOf(tiny);
  const fields = new Map(graphEvent(snap, index)!.fields);
  assert.equal(fields.get('tokens'), '1 output');
  assert.match(fields.get('model call tokens') ?? '', /^[\d,]+ input · 1 output · [\d,]+ cache read · [\d,]+ cache write$/);
  const hover = hoverFigures(eventInfo(snap, index)!).figures.join(' · ');
  assert.match(hover, /\b1 output\b/);
  assert.match(hover, /cache read/);
  const callTotal = tokenTotals([tiny]).total.toLocaleString('en-US');
  assert.ok(!hover.includes(callTotal), `the hover never shows the call's ${callTotal} tokens as the event's: ${hover}`);
  // the CLI's stats show the kinds and how much of the total is cache reads, not one bare number
  const line = statsLines('session.jsonl', traceStats(loaded)).find((l) => /^\s*tokens\b/.test(l))!;
  assert.match(line, /^\s*tokens\s+[\d,]+ input · [\d,]+ output · [\d,]+ cache read · [\d,]+ cache write; [\d,]+ in all over \d+ model calls, [\d.]+% of them cache reads$/);
}

for (const s of SESSIONS) {
  for (const [variant, change] of Object.entries(VARIANTS)) {
    test(`Claude Code: a message's tokens are its own and by kind, each call counted once: ${s.name} (${variant})`, () => {
      const text = change(fixture(...s.path));
      const loaded = loadTrace(text, fixturePath(...s.path), s.files ? nodeFileAccess : undefined);
      check(loaded, text);
    });
  }
}

test('Codex: a response\'s tokens are its output; its input is split into fresh and cached; totals count each call once', () => {
  const file = 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
  const loaded = loadTrace(fixture('codex', file), file);
  const called = loaded.trace.events.filter((e) => e.usage !== undefined);
  assert.ok(called.length > 5);
  for (const e of called) assert.equal(e.tokens, e.usage!.output);
  const totals = tokenTotals(loaded.trace.events);
  const costs = loaded.trace.costs as Record<string, number>;
  // OpenAI counts cached input inside input_tokens: fresh + cached = input
  assert.equal((totals.by_kind.input ?? 0) + (totals.by_kind.cache_read ?? 0), costs.input_tokens);
  assert.equal(totals.by_kind.output, costs.output_tokens);
  assert.equal(totals.by_kind.reasoning, costs.reasoning_output_tokens);
  assert.equal(totals.total, costs.tokens - costs.unattributed_tokens);
});
