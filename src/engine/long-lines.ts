/**
 * Events on a long line of JSON that do not start inside a string (issue #26, item 4): a one-line
 * OTLP, Jaeger or Phoenix export puts a whole trace on one line of 100 KB and more, each span an
 * object at some column of it. VS Code stops drawing a line after 10,000 characters
 * (`editor.stopRenderingLineAfter`), so a jump to a span at column 30,000 shows nothing. Instead,
 * the line is shown formatted (two-space indents, by jsonc-parser's formatter) in a read-only
 * document, with the event's object at a line of its own; this module formats the line and maps a
 * column of the line to its place in the formatted text. Pure: no file access, no `vscode`.
 */
import { applyEdits, format } from 'jsonc-parser';
import type { Position } from '../trace/model';
import { upperBound } from '../analysis/sorted';

/**
 * A line longer than this (characters) is formatted alone from the event's object (its JSON
 * value) instead of whole: formatting makes one edit per token, about 100 bytes each.
 */
export const MAX_FORMAT_CHARS = 4 * 1024 * 1024;

/** A line of JSON (or one value of it) formatted, with the map from the source's offsets to the text's positions. */
export interface FormattedJson {
  /** The formatted text (lines end with `\n`). */
  text: string;
  /** The position in `text` (0-based line and character) of offset `offset` of the source (0-based, UTF-16 units). */
  place(offset: number): Position;
}

/**
 * Formats a JSON text with two-space indents, keeping every token (the formatter only changes the
 * white space between tokens, so a token's offset maps exactly).
 * @returns undefined when `source` is not one valid JSON value (a cut-off line).
 */
export function formatJson(source: string): FormattedJson | undefined {
  try {
    JSON.parse(source);
  } catch {
    return undefined;
  }
  const edits = format(source, undefined, { tabSize: 2, insertSpaces: true, eol: '\n', insertFinalNewline: false });
  const text = applyEdits(source, edits);
  // edits come sorted and do not overlap: the text's offset of a source offset adds the length changes of the edits before it
  const ends: number[] = [];
  const shifts: number[] = [];
  let shift = 0;
  for (const e of edits) {
    shift += e.content.length - e.length;
    ends.push(e.offset + e.length);
    shifts.push(shift);
  }
  const lineStarts = [0];
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) lineStarts.push(k + 1);
  return {
    text,
    place(offset) {
      const before = upperBound(ends, offset) - 1; // the last end at or before offset
      const at = offset + (before < 0 ? 0 : shifts[before]);
      const line = upperBound(lineStarts, at) - 1; // the last line start at or before at
      return { line, character: at - lineStarts[line] };
    },
  };
}


/**
 * The end (exclusive offset) of the JSON object or array that opens at `open` of `line`: brackets
 * counted outside strings.
 * @returns undefined when `line[open]` is not `{` or `[`, or the value is not closed on the line.
 */
export function valueEnd(line: string, open: number): number | undefined {
  const first = line.charCodeAt(open);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  let depth = 0;
  let inString = false;
  for (let c = open; c < line.length; c++) {
    const ch = line.charCodeAt(c);
    if (inString) {
      if (ch === 0x5c) c++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) depth++;
    else if ((ch === 0x7d || ch === 0x5d) && --depth === 0) return c + 1;
  }
  return undefined;
}

/** What of a long line is shown formatted: from `open` (0: the whole line; else an object's opening bracket) to `close` (exclusive). */
export interface LineWindow {
  open: number;
  close: number;
}

/**
 * What of `line` to format for an event starting at `start`: the whole line when it is at most
 * {@link MAX_FORMAT_CHARS}, else the event's own object (or array).
 * @returns undefined when the line is too long and `start` opens no object.
 */
export function lineWindow(line: string, start: number): LineWindow | undefined {
  if (line.length <= MAX_FORMAT_CHARS) return { open: 0, close: line.length };
  const close = valueEnd(line, start);
  return close === undefined ? undefined : { open: start, close };
}

/**
 * Formats the window of `line` that opens at `open` (0: the whole line, when it is at most
 * {@link MAX_FORMAT_CHARS}; else an object's opening bracket).
 * @returns the formatted text and map (offsets of the line, not of the window), or undefined when
 *   that window is not valid JSON.
 */
export function formatWindow(line: string, open: number): FormattedJson | undefined {
  const close = open === 0 && line.length <= MAX_FORMAT_CHARS ? line.length : valueEnd(line, open);
  if (close === undefined) return undefined;
  const formatted = formatJson(line.slice(open, close));
  return formatted && { text: formatted.text, place: (offset) => formatted.place(offset - open) };
}
