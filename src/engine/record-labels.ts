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
 * Every label is trace content: one line, control and bidi characters shown as `⟨U+…⟩`
 * (plainLabel, src/shared/untrusted-text.ts), at most {@link LABEL_CHARS} characters.
 */
import { canonicalType } from '../trace/event-types';
import type { RecordLabel } from './event-marks';
import type { TraceEvent } from '../trace/schema';
export type { RecordLabel } from './event-marks';
import { plainLabel } from '../shared/untrusted-text';
import { contentOf } from './long-content';
import type { TraceSnapshot } from './snapshot';

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

/** Keys of a tool call's JSON arguments that say what it works on, most telling first. */
const KEY_ARGUMENTS = ['command', 'cmd', 'pattern', 'query', 'url', 'file_path', 'path', 'notebook_path', 'description', 'prompt', 'skill', 'subject', 'input'];
/** Keys whose value is a path (shown by its end: the start is the same home folder every time). */
const PATH_KEYS = new Set(['file_path', 'path', 'notebook_path']);

/** A non-zero exit code in a tool's output, or a word saying it failed. */
const EXIT_CODE = /\bexit(?:ed)?(?: with)?(?: status| code:?)? *(-?[1-9]\d*)\b|\bexit ?code:? *(-?[1-9]\d*)\b/i;

/** Words of a stop reason: `task_complete` -> `task complete`. */
function words(reason: string): string {
  return reason.replace(/_/g, ' ');
}

/** The first words of a text, on one line, controls visible, clipped to `max` characters. */
export function firstWords(text: string | undefined, max = QUOTE_CHARS): string {
  // only the head is read (a tool's output can be many KB): enough for `max` characters once whitespace runs are one space
  return plainLabel((text ?? '').trimStart().slice(0, 8 * max + 64).trimEnd(), max);
}

/** A path shown by its last three parts when long: `/home/u/p/lib/web/router.ex` -> `…/lib/web/router.ex`. */
function shortPath(p: string): string {
  if (p.length <= 40) return p;
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-3).join('/')}` : p;
}

/** What a tool call works on: its key JSON argument (command, path, pattern, ...), else its first words. */
export function keyArgument(content: string | undefined): string {
  const text = (content ?? '').trim();
  if (text.startsWith('{') && text.length < 1_000_000) {
    try {
      const args = JSON.parse(text) as Record<string, unknown>;
      for (const key of KEY_ARGUMENTS) {
        const v = args[key];
        if (typeof v === 'string' && v.trim()) return firstWords(PATH_KEYS.has(key) ? shortPath(v.trim()) : v);
        if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length) return firstWords(v.join(' '));
      }
    } catch {
      // not JSON: its first words
    }
  }
  return firstWords(text);
}

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
  let text: string;
  if (e.kind === 'compaction') text = 'compaction';
  else if (e.kind === 'interruption') text = 'interrupted by the user';
  else if (e.kind === 'api_error') text = `API error: ${firstWords(e.detail ?? content())}`;
  else if (e.kind === 'local_command') text = `command: ${firstWords(content())}`;
  else if (type === 'message') {
    // a transcript's own agent is "assistant"; in a multi-agent log each speaker has a name
    const speaker = e.from ?? e.agent;
    const from =
      speaker === e.agent ? (LABELLED_FORMATS.has(s.loaded.format) ? 'assistant' : name(speaker))
      : e.to === e.agent && speaker !== 'user' && speaker !== 'harness' ? `task from ${name(speaker)}` // a sub-agent's task, in its own file
      : name(speaker);
    text = `${from}${e.to && e.from !== 'user' && e.to !== e.agent ? ` → ${name(e.to)}` : ''}: ${firstWords(content())}`;
  } else if (type === 'tool_call') {
    text = `${name(e.tool ?? 'tool')}: ${keyArgument(content())}${e.call_status === 'denied' ? ' ✗ denied' : e.call_status === 'no_result' ? ' · no result' : ''}`;
  } else if (type === 'tool_result') {
    const call = callOf(s, i);
    const arg = call === undefined ? '' : `: ${keyArgument(contentFor(s, call))}`;
    const body = content();
    const failed = failure(e, body);
    const head = firstWords(body, 40);
    const callType = call === undefined ? undefined : canonicalType(s.loaded.trace.events[call].type);
    if (callType === 'spawn' || callType === 'delegate') text = `sub-agent ${name(s.loaded.trace.events[call!].to)} ${failed ?? `answered: ${head}`}`;
    else text = `${name(e.tool ?? 'tool')}${arg} ${failed ?? (head ? `→ ${head}` : '→ (no output)')}`;
  } else if (type === 'spawn') text = `sub-agent ${name(e.role ?? e.to)}: ${firstWords(content())}`;
  else if (type === 'delegate') text = `task → ${name(e.to)}: ${firstWords(content())}`;
  else if (type === 'return') text = `answer → ${name(e.to)}: ${firstWords(content())}`;
  else if (type === 'stop') text = (e as { scope?: unknown }).scope === 'turn' ? `turn ended (${words(String(e.reason ?? 'unknown'))})` : `stop: ${String(e.reason ?? 'unknown')}`;
  else if (type === 'reward') text = `reward ${typeof e.value === 'number' ? e.value : '?'}${e.channel ? ` (${name(e.channel)})` : ''}`;
  else if (type === 'orchestrator_decision') text = `decision: ${firstWords(content())}`;
  else text = `${name(e.type)}: ${firstWords(content())}`;
  return plainLabel(text, LABEL_CHARS);
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
  return plainLabel(shown.map((i) => eventLabel(s, i)).join(' · '), LABEL_CHARS + 30);
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
