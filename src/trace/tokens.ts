/**
 * Tokens by kind (input, output, cache read, cache write, reasoning): the sums over a trace's model
 * calls and the words that show them. Each model call's usage is recorded once, on the event that
 * is the call (`usage`, schema.ts), so a sum over events counts each call once. An event's own
 * tokens (`tokens`) are what it generated; its call's context (input, cache) is shown beside them,
 * never as the event's.
 *
 * Pure (no `vscode`): the CLI, the engine and the host use it.
 */
import type { TokenUsage, TraceEvent } from './schema';

/** The kinds, in the order they are shown. */
export const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write', 'reasoning'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Words for a kind. */
const KIND_WORDS: Record<TokenKind, string> = { input: 'input', output: 'output', cache_read: 'cache read', cache_write: 'cache write', reasoning: 'reasoning' };

/** Tokens of a trace's model calls by kind, each call counted once. */
export interface TokenTotals {
  /** Model calls that recorded usage. */
  calls: number;
  /** Sum per kind, for the kinds some call recorded. */
  by_kind: Partial<Record<TokenKind, number>>;
  /** input + cache read + cache write + output: what the calls read and wrote (reasoning is part of output). */
  total: number;
}

/** The count of one kind in a usage, when it is a non-negative finite number. */
function count(u: TokenUsage, kind: TokenKind): number | undefined {
  const v = (u as Record<string, unknown>)[kind];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The `usage` of an event when it is an object (trace content: anything else is ignored). */
export function usageOf(e: Pick<TraceEvent, 'usage'>): TokenUsage | undefined {
  const u = e.usage as unknown;
  return typeof u === 'object' && u !== null && !Array.isArray(u) ? (u as TokenUsage) : undefined;
}

/**
 * A usage from the counts a format records (each may be absent).
 * @param inputIncludesCache true when the recorded input counts the cached input too (OpenAI,
 * OpenTelemetry GenAI, OpenInference): input is then the recorded input less cache read and cache
 * write; false when it does not (Anthropic).
 * @returns undefined when no count is recorded.
 */
export function usageFrom(counts: { input?: number; output?: number; cache_read?: number; cache_write?: number; reasoning?: number }, inputIncludesCache: boolean): TokenUsage | undefined {
  const ok = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  const input = ok(counts.input);
  const cacheRead = ok(counts.cache_read);
  const cacheWrite = ok(counts.cache_write);
  const out: TokenUsage = {};
  if (input !== undefined) out.input = inputIncludesCache ? Math.max(0, input - (cacheRead ?? 0) - (cacheWrite ?? 0)) : input;
  if (ok(counts.output) !== undefined) out.output = counts.output;
  if (cacheRead !== undefined) out.cache_read = cacheRead;
  if (cacheWrite !== undefined) out.cache_write = cacheWrite;
  if (ok(counts.reasoning) !== undefined) out.reasoning = counts.reasoning;
  return Object.keys(out).length ? out : undefined;
}

/** The sum of two usages, kind by kind (a kind absent from both stays absent). */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: Record<string, unknown> = { ...a };
  for (const k of TOKEN_KINDS) {
    const v = count(b, k);
    if (v !== undefined) out[k] = (count(a, k) ?? 0) + v;
  }
  return out as TokenUsage;
}

const recorded = new WeakMap<readonly object[], boolean>();

/** True when some event of the trace carries tokens (`tokens` > 0 or a `usage`); kept per events array. */
export function recordsTokens(events: readonly Pick<TraceEvent, 'tokens' | 'usage'>[]): boolean {
  let r = recorded.get(events);
  if (r === undefined) {
    r = events.some((e) => (typeof e.tokens === 'number' && e.tokens > 0) || usageOf(e) !== undefined);
    recorded.set(events, r);
  }
  return r;
}

/**
 * Adds the tokens an event's model call recorded (its `usage`) to `into`, kind by kind (the kinds it
 * records as non-negative finite numbers). @returns true when it recorded any.
 */
export function addTokens(into: Partial<Record<TokenKind, number>>, e: Pick<TraceEvent, 'usage'>): boolean {
  const u = usageOf(e);
  if (!u) return false;
  let any = false;
  for (const k of TOKEN_KINDS) {
    const v = count(u, k);
    if (v === undefined) continue;
    into[k] = (into[k] ?? 0) + v;
    any = true;
  }
  return any;
}

/** Sums the `usage` of the events by kind (one usage per model call: each call counted once). */
export function tokenTotals(events: readonly Pick<TraceEvent, 'usage'>[]): TokenTotals {
  const byKind: Partial<Record<TokenKind, number>> = {};
  let calls = 0;
  for (const e of events) if (addTokens(byKind, e)) calls++;
  const total = (byKind.input ?? 0) + (byKind.cache_read ?? 0) + (byKind.cache_write ?? 0) + (byKind.output ?? 0);
  return { calls, by_kind: byKind, total };
}

/**
 * Tokens by kind in words: `6 input · 1 output · 17,001 cache read · 1,047 cache write`, and
 * `(300 reasoning)` after the output when recorded (not when 0); cache kinds recorded as 0 left out;
 * empty when no kind is recorded.
 */
export function formatUsage(u: Partial<Record<TokenKind, number>>): string {
  const parts: string[] = [];
  for (const k of TOKEN_KINDS) {
    const v = count(u as TokenUsage, k);
    // a cache kind recorded as 0 says nothing a reader needs ("0 cache read · 0 cache write"); input and output always show
    if (v === undefined || k === 'reasoning' || (v === 0 && (k === 'cache_read' || k === 'cache_write'))) continue;
    const given = k === 'output' ? count(u as TokenUsage, 'reasoning') : undefined;
    const reasoning = given === 0 ? undefined : given;
    parts.push(`${v.toLocaleString('en-US')} ${KIND_WORDS[k]}${reasoning !== undefined ? ` (${reasoning.toLocaleString('en-US')} reasoning)` : ''}`);
  }
  if (count(u as TokenUsage, 'output') === undefined && (count(u as TokenUsage, 'reasoning') ?? 0) > 0) parts.push(`${count(u as TokenUsage, 'reasoning')!.toLocaleString('en-US')} reasoning`);
  return parts.join(' · ');
}

/**
 * A trace's tokens for people: by kind when its calls recorded kinds, with the total and the share
 * of cache reads (`1,627 input · 44,444 output · 16,175,673 cache read · 360,809 cache write; 16,582,553
 * in all over 121 model calls, 97.5% of them cache reads`); else the sum of the events' own tokens.
 * @param ownTokens the sum of the events' `tokens`.
 */
export function formatTotals(totals: TokenTotals, ownTokens: number): string {
  if (totals.calls === 0) return ownTokens > 0 ? `${ownTokens.toLocaleString('en-US')} (kinds not recorded)` : 'none recorded';
  const cached = totals.by_kind.cache_read ?? 0;
  const share = totals.total > 0 && cached > 0 ? `, ${Math.round((1000 * cached) / totals.total) / 10}% of them cache reads` : '';
  return `${formatUsage(totals.by_kind)}; ${totals.total.toLocaleString('en-US')} in all over ${totals.calls} model call${totals.calls === 1 ? '' : 's'}${share}`;
}
