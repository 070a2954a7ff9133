/**
 * Readable labels for the records of a trace (issue #26, item 4): one short line per event that says
 * who did what, e.g. `user: Work on bead spotter-a0y…`, `assistant: I'll run the tests`,
 * `Bash: npm test ✗ exit 2`, `Read: …/lib/app.ex`, `sub-agent Explore: find the hooks`,
 * `compaction`. The editor shows them inline at the start of each record of the transcript formats
 * whose raw lines are unreadable ({@link LABELLED_FORMATS}: lines of ids and JSON cut by the editor),
 * and the Outline names every event by them (all formats). Computed in the engine's worker from the
 * snapshot; only the lines asked for are labelled (the editor asks for its visible lines), so the
 * cost is O(log n + labels asked), whatever the trace's size. Pure (no `vscode`).
 *
 * The words for a tool call (tool and key argument), a message's first words and their clipping
 * are the graph's (event-labels.ts): the text, the Outline and the graph name an event alike.
 * Every label is trace content: one line, control and bidi characters shown as `⟨U+…⟩`
 * (plainLabel, src/shared/untrusted-text.ts), at most {@link LABEL_CHARS} characters.
 */
import { canonicalType } from '../trace/event-types';
import type { RecordLabel } from './event-marks';
import type { TraceEvent } from '../trace/schema';
export type { RecordLabel } from './event-marks';
import { plainLabel } from '../shared/untrusted-text';
import { clipWords, firstWords, headedWords, LABEL_CHARS as NODE_LABEL_CHARS, toolCallWords } from './event-labels';
import { contentOf } from './long-content';
import type { TraceSnapshot } from './snapshot';
import { endedWords, stopReasonWords } from '../shared/stop-words';
import { namesKind } from '../shared/agent-words';

/** Formats whose records the editor labels inline (their raw lines are ids and JSON cut at the window's edge). */
export const LABELLED_FORMATS: ReadonlySet<string> = new Set(['claude-code', 'codex']);

/** Longest label, in characters (the cut marked with `…`). */
export const LABEL_CHARS = 90;

/** Characters of content a label quotes. */
const QUOTE_CHARS = 60;

/** Most labels one request answers (a request for more lines gets the first ones). */
export const MAX_LABELS = 2000;

/** How far back (events) a tool result looks for its call, to name the call's argument. */
const CALL_LOOKBACK = 500;

/** A non-zero exit code in a tool's output, or a word saying it failed. */
const EXIT_CODE = /\bexit(?:ed)?(?: with)?(?: status| code:?)? *(-?[1-9]\d*)\b|\bexit ?code:? *(-?[1-9]\d*)\b/i;

/** How a tool result ended: `✗ exit 2`, `✗ error`, or undefined when nothing says it failed. */
function failure(e: TraceEvent, content: string | undefined): string | undefined {
  const head = (content ?? '').slice(0, 2000);
  const code = EXIT_CODE.exec(head);
  if (code) return `✗ exit ${code[1] ?? code[2]}`;
  if ((e as { is_error?: unknown }).is_error === true) return '✗ error';
  return undefined;
}

/** The index of the call a tool result answers (its first cause), looking back a little; undefined if not found. */
function callOf(s: TraceSnapshot, i: number): number | undefined {
  const events = s.loaded.trace.events;
  const id = events[i].causes?.[0] ?? (events[i].id.endsWith(':result') ? events[i].id.slice(0, -7) : undefined);
  if (!id) return undefined;
  for (let k = i - 1; k >= 0 && k >= i - CALL_LOOKBACK; k--) if (events[k].id === id) return k;
  return undefined;
}

/**
 * The label of event `i` of a snapshot: who did what, in a few words (see the module's doc).
 * @param contentFor an event's content; by default {@link contentOf} (from disk when it was set
 *   aside: a caller labelling every event of a large trace passes {@link contentInMemory}).
 * @returns escaped, clipped text; `''` when there is no event `i`.
 */
export function eventLabel(s: TraceSnapshot, i: number, contentFor: (s: TraceSnapshot, i: number) => string | undefined = contentOf): string {
  const e = s.loaded.trace.events[i];
  if (!e) return '';
  const type = canonicalType(e.type);
  const content = () => contentFor(s, i);
  const name = (v: string | undefined) => plainLabel(v ?? '', 32);
  const quote = (head: string, text: string | undefined) => headedWords(head, text ?? '', head.length + QUOTE_CHARS);
  const meta = s.loaded.trace.metadata as { cwd?: unknown } | undefined;
  const cwd = typeof meta?.cwd === 'string' ? meta.cwd : undefined;
  const call = (k: number, text: string | undefined) => toolCallWords(s.loaded.trace.events[k].tool ?? 'tool', text, cwd, NODE_LABEL_CHARS); // as long as on its graph node
  let text: string;
  if (e.kind === 'compaction') text = 'compaction';
  else if (e.kind === 'interruption') text = 'interrupted by the user';
  else if (e.kind === 'api_error') text = quote('API error: ', e.detail ?? content());
  else if (e.kind === 'local_command') text = quote('command: ', content());
  else if (type === 'message') {
    // a transcript's own agent is "assistant"; in a multi-agent log each speaker has a name
    const speaker = e.from ?? e.agent;
    const from =
      speaker === e.agent ? (LABELLED_FORMATS.has(s.loaded.format) ? 'assistant' : name(speaker))
      : e.to === e.agent && speaker !== 'user' && speaker !== 'harness' ? `task from ${name(speaker)}` // a sub-agent's task, in its own file
      : name(speaker);
    text = quote(`${from}${e.to && e.from !== 'user' && e.to !== e.agent ? ` → ${name(e.to)}` : ''}: `, content());
  } else if (type === 'tool_call') {
    text = `${call(i, content())}${e.call_status === 'denied' ? ' ✗ denied' : e.call_status === 'no_result' ? ' · no result' : ''}`;
  } else if (type === 'tool_result') {
    const k = callOf(s, i);
    const body = content();
    const failed = failure(e, body);
    const head = firstWords(body, 40);
    const callType = k === undefined ? undefined : canonicalType(s.loaded.trace.events[k].type);
    if (callType === 'spawn' || callType === 'delegate') text = `sub-agent ${name(s.loaded.trace.events[k!].to)} ${failed ?? `answered: ${head}`}`;
    else text = `${k === undefined ? toolCallWords(e.tool ?? 'tool', undefined) : call(k, contentFor(s, k))} ${failed ?? (head ? `→ ${head}` : '→ (no output)')}`;
  } else if (type === 'spawn') {
    // `sub-agent Explore: find the loader`; `sub-agent Explore existing codebase` where the text names the kind already
    const kind = name(e.role ?? e.to);
    const said = content() ?? '';
    text = quote(kind === '' || namesKind(kind, said) ? 'sub-agent ' : `sub-agent ${kind}: `, said);
  }
  else if (type === 'delegate') text = quote(`task → ${name(e.to)}: `, content());
  else if (type === 'return') text = quote(`answer → ${name(e.to)}: `, content());
  else if (type === 'stop') text = (e as { scope?: unknown }).scope === 'turn' ? endedWords('turn', String(e.reason ?? 'unknown')) : `stop: ${stopReasonWords(undefined, String(e.reason ?? 'unknown'))}`;
  else if (type === 'reward') text = `reward ${typeof e.value === 'number' ? e.value : '?'}${e.channel ? ` (${name(e.channel)})` : ''}`;
  else if (type === 'orchestrator_decision') text = quote('decision: ', content());
  else text = quote(`${name(e.type)}: `, content());
  return clipWords(text, LABEL_CHARS);
}

/** An event's content when it is held in memory (none for content set aside, which only a disk read gives back). */
export function contentInMemory(s: TraceSnapshot, i: number): string | undefined {
  if (s.setAside?.has(i)) return undefined;
  const e = s.loaded.trace.events[i];
  return e?.content ?? e?.content_ref;
}

/** The label of a record holding events `indices` (same start): theirs joined, a delegate beside its own spawn left out. */
function recordLabel(s: TraceSnapshot, indices: readonly number[]): string {
  const events = s.loaded.trace.events;
  const ids = new Set(indices.map((i) => events[i].id));
  const shown = indices.filter((i) => !(canonicalType(events[i].type) === 'delegate' && events[i].parent !== undefined && ids.has(events[i].parent!)));
  return clipWords(shown.map((i) => eventLabel(s, i)).join(' · '), LABEL_CHARS + 30);
}

/**
 * The labels of the records of one file of a session whose start line lies in one of `lines`
 * (inclusive, 0-based), sorted by position; one label per record (events starting at the same
 * place). At most {@link MAX_LABELS}. Cost: a binary search per range on the file's sorted events,
 * then the events in range.
 * @param file `''`: the trace file, else a sub-agent file's origin key.
 * @param onlyLabelledFormats true: none for formats whose lines are readable (not in {@link LABELLED_FORMATS}).
 */
export function recordLabels(s: TraceSnapshot, file: string, lines: readonly { start: number; end: number }[], onlyLabelledFormats = true): RecordLabel[] {
  if (onlyLabelledFormats && !LABELLED_FORMATS.has(s.loaded.format)) return [];
  const list = s.byFile.get(file);
  if (!list?.length) return [];
  const origins = s.loaded.eventOrigins;
  const out: RecordLabel[] = [];
  const sorted = [...lines].sort((a, b) => a.start - b.start);
  let from = 0; // ranges that overlap must not label a record twice
  for (const { start, end } of sorted) {
    let lo = from;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (origins.get(list[mid])!.range.start.line < start) lo = mid + 1;
      else hi = mid;
    }
    let k = lo;
    while (k < list.length && out.length < MAX_LABELS) {
      const at = origins.get(list[k])!.range.start;
      if (at.line > end) break;
      const group = [list[k]];
      while (k + 1 < list.length) {
        const next = origins.get(list[k + 1])!.range.start;
        if (next.line !== at.line || next.character !== at.character) break;
        group.push(list[++k]);
      }
      k++;
      out.push({ index: group[0], at, text: recordLabel(s, group) });
    }
    from = k;
  }
  return out;
}
