/**
 * The fuzz inputs of the readers (shared by fuzz-readers.ts and the reader's fast-path property
 * test): one small fixture per reader, and the mutations fast-check draws over a text (random
 * truncations, byte flips, invalid UTF-8, line splits, record shuffles, lone surrogates).
 */
import fc from 'fast-check';

/** One small fixture per reader. */
export const FUZZ_CASES: [string, string][] = [
  ['otrace-jsonl', 'hostile/control-names.otrace.jsonl'],
  ['otrace-json', 'survey/example_trace.json'],
  ['claude-code', 'cases/04-duplicate-message-id-snapshots.jsonl'],
  ['claude-code', 'cases/10-compact-boundary-detached.jsonl'],
  ['claude-code', 'cases/28-cc-background-task-notifications/0f1e2d3c-0000-4000-8000-00000000c028.jsonl'],
  ['claude-code', 'claude-code-layouts/0f1e2d3c-0000-4000-8000-0000000a5102.jsonl'],
  ['codex', 'cases/16-codex-spawn-agent/rollout-2026-01-01T10-00-00-019f7000-0000-7000-8000-00000000a016.jsonl'],
  ['codex', 'cases/30-codex-fork-replayed-parent-history/rollout-2026-01-06T09-00-00-019f8e10-4a00-7000-8000-00000000f030.jsonl'],
  ['codex', 'cases/33-codex-exec-exit-codes-header-vs-raw.jsonl'],
  ['codex-trace-bundle', 'codex-trace-bundle/trace-2026-01-07-multi-agent/trace.jsonl'],
  ['kimi', 'kimi/session-1.10/3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21/wire.jsonl'],
  ['kimi', 'kimi/session-legacy/0e7d4b1a-2c3f-4a5b-8d6e-9f0a1b2c3d4e/wire.jsonl'],
  ['kimi-code', 'kimi-code/session/wd_7c1e0a9b/5f0c1a2e-8b3d-4c6f-9e21-0d4a7b3c9e58/agents/main/wire.jsonl'],
  ['kimi-code', 'kimi-code/real/sample-compaction/agents/main/wire.jsonl'],
  ['kimi-context', 'kimi/real/with-tool-calls/context.jsonl'],
  ['otel-genai', 'cases/06-link-cycle.json'],
  ['otel-genai', 'cases/18-otlp-genai-content-in-span-events.json'],
  ['otel-genai', 'otel/multi-agent.otlp.jsonl'],
  ['otel-genai', 'otel/logs-mixed.otlp.jsonl'],
  ['otel-genai', 'otel/agent-interactions.otlp.json'],
  ['otel-genai', 'copilot/copilot-otel.jsonl'],
  ['otel-genai', 'copilot/copilot-chat-otel.jsonl'],
  ['copilot-cli', 'copilot/session-state/0b9c3f1e-7d2a-4c58-9e61-2f4a8b7c5d30/events.jsonl'],
  ['gemini-cli', 'gemini-cli/chats/session-2026-05-04T09-12-3c1f9a2e.jsonl'],
  ['gemini-cli', 'gemini-cli/legacy/session-2025-10-01T14-11-3bacc8a0.json'],
  ['gemini-cli', 'gemini-cli/checkpoint-refactor.json'],
  ['who-and-when', 'who-and-when/Hand-Crafted/24.json'],
  ['mast', 'mast/AG2_early_human_annotated/AG2_trace2.json'],
  ['jaeger', 'jaeger/agents.jaeger.json'],
  ['jaeger', 'jaeger/ui_01.json'],
  ['zipkin', 'zipkin/agents.zipkin.json'],
  ['zipkin', 'zipkin/skew.json'],
  ['langfuse', 'langfuse/trace.langfuse.json'],
  ['langfuse', 'cases/35-langfuse-turn-exported-twice.json'],
  ['phoenix', 'phoenix/spans.phoenix.jsonl'],
  ['phoenix', 'phoenix/spans-dataframe.phoenix.json'],
  ['langsmith', 'langsmith/runs.langsmith.jsonl'],
  ['langsmith', 'langsmith/run-tree.langsmith.json'],
  ['openai-agents', 'openai-agents/trace.openai-agents.jsonl'],
  ['agentops', 'agentops/trace.agentops.json'],
  // Not a registered format: the mapping reader, with the fixture's mapping (fuzz-readers.ts formatById).
  ['mapping', 'mapping/crew.runlog.jsonl'],
];

/** A mutation of a text: what fast-check draws. */
export type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; flips: [number, number][] }
  | { kind: 'utf8'; inserts: [number, number][] }
  | { kind: 'split'; at: number[] }
  | { kind: 'shuffle'; swaps: [number, number][] }
  | { kind: 'surrogate'; at: number };

export function mutation(len: number, lineCount: number): fc.Arbitrary<Mutation> {
  const pos = fc.nat({ max: Math.max(0, len - 1) });
  const line = fc.nat({ max: Math.max(0, lineCount - 1) });
  return fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat({ max: len }) }),
    fc.record({ kind: fc.constant('flip' as const), flips: fc.array(fc.tuple(pos, fc.nat({ max: 255 })), { minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant('utf8' as const), inserts: fc.array(fc.tuple(pos, fc.integer({ min: 0x80, max: 0xff })), { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('split' as const), at: fc.array(pos, { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('shuffle' as const), swaps: fc.array(fc.tuple(line, line), { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('surrogate' as const), at: pos }),
  );
}

export function apply(text: string, m: Mutation): string {
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, m.at);
    case 'flip': {
      const b = Buffer.from(text, 'utf8');
      for (const [i, v] of m.flips) if (i < b.length) b[i] = v;
      return b.toString('utf8');
    }
    case 'utf8': {
      let b = Buffer.from(text, 'utf8');
      for (const [i, v] of [...m.inserts].sort((x, y) => y[0] - x[0])) b = Buffer.concat([b.subarray(0, Math.min(i, b.length)), Buffer.from([v]), b.subarray(Math.min(i, b.length))]);
      return b.toString('utf8');
    }
    case 'split': {
      let t = text;
      for (const i of [...m.at].sort((x, y) => y - x)) t = `${t.slice(0, i)}\n${t.slice(i)}`;
      return t;
    }
    case 'shuffle': {
      const ls = text.split('\n');
      for (const [a, b] of m.swaps) if (a < ls.length && b < ls.length) [ls[a], ls[b]] = [ls[b], ls[a]];
      return ls.join('\n');
    }
    case 'surrogate':
      return `${text.slice(0, m.at)}\ud800${text.slice(m.at)}`;
  }
}

