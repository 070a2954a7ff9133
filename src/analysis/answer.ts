/**
 * The final answer of a run and where it first appeared.
 *
 * The final answer is the text of the last substantive output before a stop: the stop's own
 * content when it carries `FINAL ANSWER:`, else the last aggregate / return / message of an agent
 * (tool output and verbatim repeats excluded) whose text is more than a bare "TERMINATE". Inside it, an explicit answer
 * is extracted when written as `FINAL ANSWER: X`, `the answer is X`, `Answer: X` or `\boxed{X}`.
 */
import { escapeRegExp } from '../shared/reg-exp';
import { NOT_AGENT_OUTPUT_KINDS } from '../trace/schema';
import type { TraceIndex } from './trace-index';
import { MAX_TEXT, normalizeContent } from './text';

export interface FinalAnswer {
  /** Position of the event holding it. */
  pos: number;
  /** The extracted answer (normalized), or the whole normalized text when none is explicit. */
  answer: string;
  explicit: boolean;
}

const EXPLICIT = [
  /FINAL ANSWER\s*:\s*([^\n]+)/i,
  /\\boxed\{([^}\n]{1,200})\}/,
  /\b(?:final answer|the answer)\s*(?:is|:)\s*([^\n]{1,200})/i,
  /^\s*\**answer\**\s*:\s*([^\n]{1,200})/im,
];

const OUTPUT_TYPES = new Set(['aggregate', 'return', 'message', 'stop', 'orchestrator_decision']);

/** An answer says something: a letter or a digit (`?!…—.` is not an answer). */
const HAS_WORD = /[\p{L}\p{N}]/u;

/** Strips markdown emphasis, quotes and trailing punctuation from an extracted answer. */
function cleanAnswer(text: string): string {
  return normalizeContent(text.replace(/[*_`"“”]+/g, ' ')).replace(/[.!;:,\s]+$/, '').trim();
}

/** The explicit answer inside a text, or undefined. */
export function explicitAnswer(text: string): string | undefined {
  for (const re of EXPLICIT) {
    const m = re.exec(text);
    if (m && m[1]) {
      const a = cleanAnswer(m[1]);
      if (HAS_WORD.test(a)) return a;
    }
  }
  return undefined;
}

/** Senders whose messages are never an agent's output: the user's prompts, the harness's injected rows. */
const NOT_AGENT_SENDERS = new Set(['user', 'harness', 'human']);

/**
 * True for an event written by the harness or the user rather than an agent: a local command, a
 * meta row, a synthetic placeholder, a missing-parent placeholder, a prompt from the user.
 */
export function isNotAgentOutput(e: { kind?: string; from?: string; synthetic?: unknown; type: string }): boolean {
  return notAgentOutputOf(e.kind, e.type, e.from, e.synthetic);
}

/** {@link isNotAgentOutput} of an event's `kind`, `type` (as recorded), `from` and `synthetic` fields. */
export function notAgentOutputOf(kind: string | undefined, type: string, from: string | undefined, synthetic: unknown): boolean {
  return (kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(kind)) || synthetic === true || (type === 'message' && from !== undefined && NOT_AGENT_SENDERS.has(from));
}

/** True for output positions that carry content of an agent (not tool output, not bookkeeping, not a user or harness row). Memoized per position. */
export function isAgentOutput(index: TraceIndex, i: number): boolean {
  const memo = index.memo.agentOutput;
  let known = memo[i];
  if (known === 0) memo[i] = known = agentOutput(index, i) ? 1 : 2;
  return known === 1;
}

function agentOutput(index: TraceIndex, i: number): boolean {
  if (!OUTPUT_TYPES.has(index.types[i]) || index.toolLanes.has(index.agentOf(i)) || index.notAgentOutput(i)) return false;
  const text = index.content(i);
  // /\S/ is the complement of what trim() removes: text other than white space
  return text.includes('TERMINATE') ? text.replace(/\bTERMINATE\b/g, '').trim().length > 0 : /\S/.test(text);
}

/**
 * The final answer among positions [from, to] (inclusive, only those `keep` accepts), searching backwards.
 * @returns undefined when no event in the range carries agent output.
 */
export function finalAnswer(index: TraceIndex, from: number, to: number, keep?: (i: number) => boolean): FinalAnswer | undefined {
  for (let i = to; i >= from; i--) {
    if (keep && !keep(i)) continue;
    const text = index.content(i);
    if (index.types[i] === 'stop' || !isAgentOutput(index, i)) {
      const a = /FINAL ANSWER\s*:/i.test(text) ? explicitAnswer(text) : undefined;
      if (a) return { pos: i, answer: a, explicit: true };
      continue;
    }
    const a = explicitAnswer(text);
    if (a) return { pos: i, answer: a, explicit: true };
    if (index.firstSeen(i) !== i) continue; // a repeat (boilerplate) is not the answer
    const whole = cleanAnswer(text.replace(/\bTERMINATE\b/g, ''));
    if (whole.length >= 3 && HAS_WORD.test(whole)) return { pos: i, answer: whole, explicit: false };
  }
  return undefined;
}

const ANSWER_CONTEXT = /answer|result|conclu|final|satisf|is:|=/i;

/**
 * The first position in [from, final.pos) (only those `keep` accepts) whose content states the final answer: contains it as
 * whole words (a short answer, under 2 words or 8 characters, only counts next to words like
 * "answer" or "result"). A non-explicit answer (the whole text) must recur in full.
 * @returns the position, or -1 when it first appears at `final.pos`.
 */
export function firstAppearance(index: TraceIndex, final: FinalAnswer, from: number, keep?: (i: number) => boolean): number {
  const answer = final.answer;
  if (answer.length < 2 || answer.length > 300) return -1;
  const short = answer.length < 8 || !answer.includes(' ');
  const re = new RegExp(`(^|[^a-z0-9])${escapeRegExp(answer)}($|[^a-z0-9])`);
  const mayHold = headFilter(answer);
  for (let i = Math.max(0, from); i < final.pos; i++) {
    if (keep && !keep(i)) continue;
    if (!isAgentOutput(index, i) && index.types[i] !== 'tool_result') continue;
    if (!mayHold(index, i)) continue;
    const text = index.normalizedContent(i);
    if (!re.test(text)) continue;
    if (short && !ANSWER_CONTEXT.test(text)) continue;
    return i;
  }
  return -1;
}

/** Text of ASCII characters none of which is a letter. */
const CASELESS = /^[\x00-\x40\x5b-\x60\x7b-\x7f]*$/;

/** A head the filter cannot judge: a character outside ASCII, or a date (normalizing removes timestamps). */
const NOT_PLAIN = /[^\x00-\x7f]|\d{4}-\d{2}-\d{2}/;

/**
 * A test on an event's raw content (content, else content_ref) that is false only when its
 * normalized content (text.ts `normalizeContent`) cannot contain `answer`, without building it:
 * for an ASCII head without a date, normalizing only lower-cases and collapses white space, so the
 * longest space-free part of the answer must be in the head as it is, ignoring case. Other texts
 * pass. Whether a head is plain is read from the index (found with the fingerprints) when known.
 */
function headFilter(answer: string): (index: TraceIndex, i: number) => boolean {
  const part = answer.split(' ').reduce((a, b) => (b.length > a.length ? b : a), '');
  if (part === '') return () => true;
  const re = new RegExp(escapeRegExp(part), 'i');
  // ASCII without letters (a figure such as `163605:`) has no case: a plain search finds the same
  // (in a case-insensitive expression without the u flag, no other character matches one of them)
  const caseless = CASELESS.test(part);
  return (index, i) => {
    const raw = index.rawContent(i);
    if (raw === undefined) return true;
    const head = raw.length > MAX_TEXT ? raw.slice(0, MAX_TEXT) : raw;
    if (caseless ? head.includes(part) : re.test(head)) return true;
    const plain = index.memo.plainHead[i];
    return plain === 0 ? NOT_PLAIN.test(head) : plain === 2;
  };
}
