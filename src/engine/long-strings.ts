/**
 * Events on long lines (issue #26, item 4): a MAST record is one JSON object whose ChatDev log is
 * a single string of hundreds of KB, with each event's range inside it; a one-line export (OTLP,
 * Jaeger, Phoenix) puts every span on one line. The editor shows such a line collapsed (it stops
 * rendering after 10,000 characters), so a jump there shows nothing. Instead, the string's decoded
 * text is shown on its own ("Show Whole Content", src/host/editor/event-content.ts) with the cursor
 * on the event's line of it; an event that starts outside a string (a span's object) is shown in
 * the line's JSON formatted (src/engine/long-lines.ts). This module finds the string or the
 * object and the event's place in the text shown, reading the line from the file on disk. Pure
 * Node (`node:fs`), no `vscode`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Position, Range } from '../trace/model';
import type { TraceSnapshot } from './snapshot';
import { formatWindow, lineWindow, type FormattedJson } from './long-lines';
import { decodeText } from '../trace/text-encoding';

/** A line longer than this (characters) is shown cut by the editor (VS Code's `editor.stopRenderingLineAfter` default). */
export const LONG_LINE_CHARS = 10_000;

/** Files larger than this (bytes) are not read again to find a string (the jump stays in the file). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * A JSON string found in a line: its decoded text and the place of a position of the line in that
 * text; or, with `view: 'json'`, the line's JSON formatted and the place of a position in it.
 */
export interface StringPlace {
  /** The string's decoded value (`view: 'json'`: the JSON formatted). */
  text: string;
  /** The position's place in `text`: 0-based line (by `\n`) and character. */
  at: Position;
  /** The string's opening quote in its line (0-based character); `view: 'json'`: where the formatted JSON starts (0: the whole line, else an object's `{`). */
  open: number;
  /** `'json'`: the text is the line's JSON formatted (an event that starts outside a string: a span's object); absent: a string's value. */
  view?: 'json';
  /** `view: 'json'`, for an event: where its record ends in `text` (exclusive). */
  end?: Position;
}

/** A long string an event starts in: {@link StringPlace} and where the string is in its file. */
export interface EventString extends StringPlace {
  /** The event's file: `''` the trace file, else its origin's `file`. */
  file: string;
  /** Line (0-based) of the file that holds the string. */
  line: number;
  /** The event's start in that line (0-based character: past what the editor draws). */
  character: number;
}

/**
 * The JSON string of `line` that holds character `character` (from its opening quote to its
 * closing one), decoded, and that character's place in the decoded text. Lines of a JSON file
 * start outside any string (a JSON string cannot hold a raw line break), so a scan from the line's
 * start tells strings apart.
 * @returns undefined when the character is outside a string, or the string does not decode.
 */
export function stringAt(line: string, character: number): StringPlace | undefined {
  if (character < 0 || character >= line.length) return undefined;
  let inString = false;
  let open = -1;
  for (let c = 0; c < character; c++) {
    const ch = line.charCodeAt(c);
    if (inString) {
      if (ch === 0x5c) c++; // backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
      open = c;
    }
  }
  if (!inString) {
    if (line.charCodeAt(character) !== 0x22) return undefined;
    open = character; // the position is the string's opening quote
  }
  let close = Math.max(character, open + 1);
  for (; close < line.length; close++) {
    const ch = line.charCodeAt(close);
    if (ch === 0x5c) close++;
    else if (ch === 0x22) break;
  }
  if (close >= line.length) return undefined;
  let text: string;
  try {
    text = JSON.parse(line.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
  // the decoded text before the position (backing off when the position cuts an escape in two)
  let prefix: string | undefined;
  for (let cut = Math.max(character, open + 1); cut >= open + 1 && prefix === undefined && cut > character - 8; cut--) {
    try {
      prefix = JSON.parse(`"${line.slice(open + 1, cut)}"`) as string;
    } catch {
      prefix = undefined;
    }
  }
  prefix ??= '';
  const lastBreak = prefix.lastIndexOf('\n');
  let breaks = 0;
  for (let k = prefix.indexOf('\n'); k !== -1; k = prefix.indexOf('\n', k + 1)) breaks++;
  return { text, at: { line: breaks, character: prefix.length - lastBreak - 1 }, open };
}

/** Line `n` (0-based) of a text, without its line break; undefined when the text has fewer lines. */
function lineOf(text: string, n: number): string | undefined {
  let start = 0;
  for (let k = 0; k < n; k++) {
    const next = text.indexOf('\n', start);
    if (next === -1) return undefined;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  const line = text.slice(start, end === -1 ? text.length : end);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * What to show for event `index` when its line is longer than {@link LONG_LINE_CHARS} (the editor
 * would show it cut): the long JSON string it starts in, and the event's place in the string's
 * text; or, when it starts outside a string (a span's object of a one-line export), the line's
 * JSON formatted (`view: 'json'`) and the event's record in it. Reads the event's file (the trace,
 * or the sub-agent file of its origin) from disk.
 * @returns undefined when the event starts at the start of its line (the editor shows it), on a
 *   line the editor shows whole, on a line that is no JSON, or its file cannot be read (too large, gone).
 */
export function eventString(s: TraceSnapshot, index: number): EventString | undefined {
  const origin = s.loaded.eventOrigins.get(index);
  // a record at the start of its line is in view (most formats): no need to read the file
  if (!origin || origin.range.start.character === 0) return undefined;
  const file = origin.file ?? '';
  const { start, end } = origin.range;
  const line = lineOfFile(s, file, start.line);
  if (line === undefined || line.length <= LONG_LINE_CHARS) return undefined;
  const found = stringAt(line, start.character) ?? jsonPlace(s, file, start.line, line, start.character, end.line === start.line ? end.character : undefined);
  return found && { ...found, file, line: start.line, character: start.character };
}

/**
 * The JSON string at a position of one of a session's files (`''`: the trace file), when its line
 * is longer than {@link LONG_LINE_CHARS}; see {@link eventString}. `view: 'json'`: the line's JSON
 * formatted from character `at.character` (a {@link StringPlace.open}), the place its start.
 */
export function longStringAt(s: TraceSnapshot, file: string, at: Position, view?: 'json'): StringPlace | undefined {
  const line = lineOfFile(s, file, at.line);
  if (line === undefined || line.length <= LONG_LINE_CHARS) return undefined;
  if (view !== 'json') return stringAt(line, at.character);
  const formatted = formattedOf(s, file, at.line, line, at.character);
  return formatted && { text: formatted.text, at: { line: 0, character: 0 }, open: at.character, view };
}

/** The last window of a line formatted per snapshot (steps through one export format its line once). */
const lastFormatted = new WeakMap<TraceSnapshot, { file: string; line: number; open: number; formatted: FormattedJson | undefined }>();

/** The window of line `n` of `file` that opens at `open`, formatted (cached: the last one per snapshot). */
function formattedOf(s: TraceSnapshot, file: string, n: number, line: string, open: number): FormattedJson | undefined {
  const cached = lastFormatted.get(s);
  if (cached && cached.file === file && cached.line === n && cached.open === open) return cached.formatted;
  const formatted = formatWindow(line, open);
  lastFormatted.set(s, { file, line: n, open, formatted });
  return formatted;
}

/**
 * The place of a record that starts at `start` of a long line, outside any string, in the line's
 * JSON formatted: the whole line, or the record's own object when the line is too long to format
 * whole or is not valid JSON (a cut-off export).
 * @param endChar where the record ends on the line (exclusive), when it ends on it
 */
function jsonPlace(s: TraceSnapshot, file: string, n: number, line: string, start: number, endChar: number | undefined): StringPlace | undefined {
  let open = lineWindow(line, start)?.open;
  let formatted = open === undefined ? undefined : formattedOf(s, file, n, line, open);
  if (!formatted && open === 0) formatted = formattedOf(s, file, n, line, (open = start));
  if (!formatted || open === undefined) return undefined;
  return { text: formatted.text, at: formatted.place(start), open, view: 'json', ...(endChar !== undefined ? { end: formatted.place(endChar) } : {}) };
}

/** Where an event is in the text of the long JSON string it starts in: {@link EventString} without the text (small enough for the Problems panel's entries). */
export type StringSpot = Omit<EventString, 'text'>;

/**
 * {@link eventString} for many events at once, without their text: each file is read at most once,
 * and only when one of the events lies on a line the snapshot knows to be long (an event of that
 * line reaches past {@link LONG_LINE_CHARS}), so a trace without long lines is never read again.
 * Cost: a binary search per line of the events asked, plus one read of each file with a long line among them.
 * @returns event index -> its place in its string (or in its line's JSON formatted), for the events that start inside a long string (or past the start of a long line).
 */
export function eventStringSpots(s: TraceSnapshot, indices: Iterable<number>): Map<number, StringSpot> {
  const origins = s.loaded.eventOrigins;
  const places: [number, string, Range][] = [];
  for (const i of indices) {
    const o = origins.get(i);
    if (o) places.push([i, o.file ?? '', o.range]);
  }
  return rangeStringSpots(s, places);
}

/**
 * {@link eventStringSpots} for any ranges of a session's files (a reader's problem at a span of a
 * one-line export): where each range's start is in the text shown for its long line.
 * @param places key, file (`''`: the trace file, else as an origin names it) and range
 * @returns key -> its place, for the ranges that start inside a long string or past the start of a long line.
 */
export function rangeStringSpots<K>(s: TraceSnapshot, places: Iterable<[K, string, Range]>): Map<K, StringSpot> {
  const wanted = new Map<string, Map<number, [K, Range][]>>(); // file -> line -> places
  for (const [key, file, range] of places) {
    if (range.start.character === 0) continue;
    let lines = wanted.get(file);
    if (!lines) wanted.set(file, (lines = new Map()));
    const list = lines.get(range.start.line);
    if (list) list.push([key, range]);
    else lines.set(range.start.line, [[key, range]]);
  }
  const out = new Map<K, StringSpot>();
  for (const [file, lines] of wanted) {
    const needed = [...lines.keys()].filter((n) => lineLooksLong(s, file, n));
    if (!needed.length) continue;
    const text = fileText(s, file);
    if (text === undefined) continue;
    for (const n of needed) {
      const line = lineOf(text, n);
      if (line === undefined || line.length <= LONG_LINE_CHARS) continue;
      for (const [key, { start, end }] of lines.get(n)!) {
        const found = stringAt(line, start.character) ?? jsonPlace(s, file, n, line, start.character, end.line === n ? end.character : undefined);
        if (!found) continue;
        const { text: _text, ...spot } = found;
        out.set(key, { ...spot, file, line: n, character: start.character });
      }
    }
  }
  return out;
}

/** True when the last event starting on line `n` of `file` starts or ends past {@link LONG_LINE_CHARS} on that line (the snapshot's events of a file are sorted by position: a binary search). */
function lineLooksLong(s: TraceSnapshot, file: string, n: number): boolean {
  const list = s.byFile.get(file);
  if (!list?.length) return false;
  const origins = s.loaded.eventOrigins;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (origins.get(list[mid])!.range.start.line <= n) lo = mid + 1;
    else hi = mid;
  }
  const last = lo > 0 ? origins.get(list[lo - 1]) : undefined;
  if (!last || last.range.start.line !== n) return false;
  return last.range.start.character > LONG_LINE_CHARS || (last.range.end.line === n && last.range.end.character > LONG_LINE_CHARS);
}

/** The last line read per snapshot (steps through one long string read its file once). */
const lastLine = new WeakMap<TraceSnapshot, { file: string; line: number; text: string | undefined }>();

/** Line `n` of one of a session's files, read from disk (undefined when it cannot be read or is too large). */
function lineOfFile(s: TraceSnapshot, file: string, n: number): string | undefined {
  const cached = lastLine.get(s);
  if (cached && cached.file === file && cached.line === n) return cached.text;
  const whole = fileText(s, file);
  const text = whole === undefined ? undefined : lineOf(whole, n);
  lastLine.set(s, { file, line: n, text });
  return text;
}

/** One of a session's files as the editor shows it (no BOM), read from disk; undefined when it cannot be read or is too large. */
function fileText(s: TraceSnapshot, file: string): string | undefined {
  const fsPath = file ? path.resolve(path.dirname(s.path), file) : s.path;
  try {
    return fs.statSync(fsPath).size <= MAX_FILE_BYTES ? decodeText(fs.readFileSync(fsPath)).text : undefined;
  } catch {
    return undefined;
  }
}
