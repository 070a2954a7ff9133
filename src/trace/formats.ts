/**
 * Format detection and the registry of readers. A file is recognized by its content (a Claude Code
 * session is a UUID-named .jsonl), with the file name only as a hint; an unknown file gets a
 * message naming every format tried.
 */
import { signKeysIn } from './format-keys';
import { describeParseError } from './json-positions';
import { parseTree, type ParseError } from 'jsonc-parser';
import type { GrowingFiles } from './jsonl-feed';
import { LineIndex, OriginArray, type LoadedTrace } from './model';
import { GrowingTraceJsonl, readTraceJson, readTraceJsonl } from './read';
import { binaryAt, binaryProblem, encodingLabel, misreadEncoding } from './text-encoding';

/** Reads other files next to the opened one (e.g. sub-agent transcripts); undefined when absent. */
export interface FileAccess {
  readText(path: string): string | undefined;
  /** Names of the entries of a directory, or undefined when it does not exist. */
  list(dir: string): string[] | undefined;
}

/** One trace format: how to recognize it and how to read it. */
export interface TraceFormat {
  /** Stable id, e.g. `otrace-jsonl`, `claude-code`. */
  id: string;
  /** Human name for messages, e.g. "Claude Code session JSONL". */
  label: string;
  /**
   * True when `text` (the start of the file is enough) is in this format. The extension host asks
   * the engine only for files whose start shows one of the signs in src/trace/trace-sniff.ts: a
   * new format adds its sign there (test/unit/trace/trace-sniff.test.ts checks it on its fixtures).
   */
  detect(text: string, fileName: string): boolean;
  /**
   * Keys of which `detect` needs at least one, as a JSON key (`"key":`) within the first MB of
   * the text (format-keys.ts): the format is asked only when the head holds one. Only for a
   * detector that is false without them, whatever the file's name.
   */
  keys?: readonly string[];
  /** Reads the whole file. Never throws for bad content: problems go in the result. */
  read(text: string, fileName: string, files?: FileAccess): LoadedTrace;
  /**
   * For formats written while an agent runs (JSONL): an import that follows the files as they
   * grow, reading only what was appended ({@link GrowingImport}).
   */
  grow?(fileName: string, files: GrowingFiles): GrowingImport;
}

/**
 * A trace read as its files grow (src/trace/jsonl-feed.ts): each {@link update} reads the lines
 * appended since the last one into the import's state.
 */
export interface GrowingImport {
  /**
   * Reads what was appended since the last call (the first call reads the files whole).
   * @returns the trace, equal to what the format's `read` gives on the files' text now; undefined
   *   when the import cannot go on from where it was (a file was read whole again): start another.
   * @throws RangeError for a record nested too deeply to check (as `read` would; read whole instead).
   */
  update(): LoadedTrace | undefined;
  /**
   * Optional: takes lists of its own for what the trace it returned last shares with it (an
   * import that hands out its lists and copies them on its next change: src/trace/read.ts), so
   * that the next {@link update} copies nothing. For a time when nothing waits on it.
   */
  ownLists?(): void;
}

/** The first non-blank lines of a text, parsed as JSON (undefined for a line that does not parse). */
export function firstJsonLines(text: string, count: number): unknown[] {
  const out: unknown[] = [];
  let start = 0;
  while (out.length < count && start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    if (line) {
      try {
        out.push(JSON.parse(line));
      } catch {
        out.push(undefined);
      }
    }
    start = end + 1;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** otrace JSONL: lines are events (`id`, `type`, `agent`), `{"edge": ...}` lines or trace fields. */
export const otraceJsonl: TraceFormat = {
  id: 'otrace-jsonl',
  label: 'otrace JSONL',
  detect(text, fileName) {
    if (fileName.endsWith('.otrace.jsonl')) return true;
    const lines = firstJsonLines(text, 3);
    return lines.length > 0 && lines.some((l) => isObject(l) && typeof l.id === 'string' && typeof l.type === 'string' && typeof l.agent === 'string' && 't' in l);
  },
  read: (text) => readTraceJsonl(text),
  grow: (fileName, files) => new GrowingTraceJsonl(fileName, files),
};

/** otrace / survey JSON: one object with an `events` array. */
export const otraceJson: TraceFormat = {
  id: 'otrace-json',
  label: 'otrace / survey trace JSON',
  detect(text, fileName) {
    if (fileName.endsWith('.otrace.json')) return true;
    if (fileName.endsWith('.otrace.jsonl')) return false; // named JSON Lines: the JSONL reader's
    const head = text.trimStart();
    const start = text.slice(0, 1 << 20);
    // An `events` array, or (for a document cut off early) the survey's leading trace fields; not
    // JSON Lines (two object lines) and not OTLP spans (whose span events are an `events` array too).
    const lines = firstJsonLines(text, 2);
    if (lines.length === 2 && isObject(lines[0]) && isObject(lines[1])) return false;
    if (/"(resourceSpans|resource_spans)"\s*:/.test(text.slice(0, 1 << 16))) return false;
    return head.startsWith('{') && (/"events"\s*:\s*\[/.test(start) || /^\{\s*"(trace_id|task_id)"\s*:/.test(head)) && !/"history"\s*:\s*\[/.test(text.slice(0, 4096));
  },
  read: (text) => readTraceJson(text),
};

/** Readers in detection order; importers register theirs with {@link registerFormat}. */
const formats: TraceFormat[] = [otraceJsonl, otraceJson];

/** Adds a format to the registry (before the native ones when `first`). */
export function registerFormat(format: TraceFormat, first = false): void {
  if (formats.some((f) => f.id === format.id)) return;
  if (first) formats.unshift(format);
  else formats.push(format);
  keysOfFormats = undefined;
}

/** The registered formats, in detection order. */
export function listFormats(): readonly TraceFormat[] {
  return formats;
}

/** The format of a file, by content, or undefined (always for binary content: {@link binaryAt}). */
export function detectFormat(text: string, fileName: string): TraceFormat | undefined {
  if (binaryAt(text) !== -1) return undefined;
  // the formats' sign keys looked for once, not by each detector in turn
  const found = signKeysIn(text, signKeys());
  return formats.find((f) => (f.keys === undefined || f.keys.some((k) => found.has(k))) && f.detect(text, fileName));
}

/** The sign keys of the registered formats (one list while the registry stays the same). */
let keysOfFormats: readonly string[] | undefined;

function signKeys(): readonly string[] {
  keysOfFormats ??= [...new Set(formats.flatMap((f) => f.keys ?? []))];
  return keysOfFormats;
}

/**
 * Reads a trace file of any registered format.
 * @param text the file's content; @param fileName its path (used for hints and sibling files).
 * @returns the loaded trace; for an unknown format, an empty trace with one error naming the formats tried.
 */
export function loadTrace(text: string, fileName: string, files?: FileAccess): LoadedTrace {
  // A byte-order mark is not content: as VS Code's documents and editors do, positions count from after it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') {
    const empty = failed(text, 'unknown', 'the file is empty: there is no trace to read yet');
    empty.problems[0]!.whileWritten = 'the file is empty for now: it is being written (it grew or was written anew), and its records are read as they come';
    return empty;
  }
  const misread = misreadEncoding(text);
  if (misread) return failed(text, 'unknown', `this text is ${encodingLabel(misread)} read as UTF-8 (a U+0000 beside each character): reopen the file with encoding ${encodingLabel(misread)} (VS Code: "Reopen with Encoding"), or convert it to UTF-8`);
  const nul = binaryAt(text);
  // one problem, not one per line of bytes: a binary file has no trace to read
  if (nul !== -1) return { ...failed(text, 'unknown', ''), problems: [binaryProblem(text, nul)] };
  const format = detectFormat(text, fileName);
  const broken = format ? undefined : brokenJson(text);
  if (broken) return failed(text, 'unknown', broken.message, broken.at);
  if (!format) return failed(text, 'unknown', `not a recognized trace format; tried: ${formats.map((f) => f.label).join(', ')}. For another format, write a mapping file (*.otrace-map.json: dotted paths to id, time, agent, type; docs/mapping.md) and pass it with \`otrace --map FILE\``);
  try {
    return format.read(text, fileName, files);
  } catch (err) {
    // Readers report bad content as problems; this is the last guard (e.g. nesting deeper than the
    // parser's stack), so a file never takes the editor or the CLI down with it.
    if (err instanceof RangeError) {
      const at = deepNesting(text);
      const problem = failed(text, format.id, `cannot read this file: it is nested more than ${DEEP} levels deep here`);
      if (at !== -1) problem.problems[0].range = new LineIndex(text).range(at, 1);
      return problem;
    }
    return failed(text, format.id, `cannot read this file: the ${format.label} reader failed: ${(err as Error).message}`);
  }
}

const DEEP = 1000;

/** Offset of the first bracket nested more than {@link DEEP} levels deep (outside strings), or -1. */
function deepNesting(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > DEEP) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** An empty trace with one error on the first line. */
/** @param at the problem's offset in `text` (default: the first line, from its start). */
function failed(text: string, format: string, message: string, at?: number): LoadedTrace {
  const lines = new LineIndex(text);
  const firstLineEnd = text.indexOf('\n') === -1 ? text.length : text.indexOf('\n');
  const range = at === undefined ? { start: { line: 0, character: 0 }, end: lines.position(Math.min(firstLineEnd, 200)) } : { start: lines.position(at), end: lines.position(Math.min(text.length, at + 1)) };
  return {
    format,
    trace: { events: [], edges: [] },
    eventOrigins: new OriginArray(),
    edgeOrigins: new OriginArray(),
    problems: [{ severity: 'error', message, range }],
  };
}

/**
 * A file no format reads that starts as JSON but is none, neither as one document nor as lines
 * (JSONL): where its JSON breaks and how, e.g. a document cut off (`{"a":1`). Said instead of "not
 * a recognized trace format", which blamed the format for a file cut short. Undefined for any other.
 */
function brokenJson(text: string): { message: string; at: number } | undefined {
  const start = text.search(/\S/);
  if (start === -1 || (text[start] !== '{' && text[start] !== '[')) return undefined;
  const lineEnd = text.indexOf('\n', start);
  const first = text.slice(start, lineEnd === -1 ? text.length : lineEnd);
  if (parses(first) || parses(text)) return undefined;
  const errors: ParseError[] = [];
  parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  const e = errors[0];
  if (!e) return undefined;
  const cutOff = e.offset >= text.trimEnd().length;
  return { at: Math.min(e.offset, text.length), message: `not a trace: the file is not valid JSON (${describeParseError(e)}${cutOff ? ' at its end: is it cut off?' : ''}), neither one document nor one record a line (JSONL)` };
}

function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}
