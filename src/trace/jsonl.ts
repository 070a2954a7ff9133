/**
 * Walking a JSONL text line by line: each line that is a JSON object becomes a record; each line
 * that is not becomes a positioned problem ("last line is cut off" for an unterminated last line),
 * and the other lines still load. Shared by the otrace JSONL reader and the JSONL importers.
 *
 * Pure: imports nothing from `vscode`.
 */
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { Problem, Range } from './model';

/** One parsed line of a JSONL file. */
export interface JsonlRecord {
  /** 0-based line index in its file (also the `record` of the origins of its events). */
  line: number;
  /** Offset of the line's first character in the text. */
  start: number;
  /** Length of the line in UTF-16 code units, without its line break. */
  length: number;
  /** The parsed JSON object. */
  value: Record<string, unknown>;
}

/** The records of a JSONL text, and the problems of the lines that could not be used. */
export interface JsonlRecords {
  records: JsonlRecord[];
  problems: Problem[];
  /** Number of lines, counting a last line without a line break. */
  lineCount: number;
}

/** True for a non-null, non-array object. */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Calls `onRecord` for each record of a JSONL text, in line order, without keeping them (so a
 * one-pass importer holds only what it makes of them). Blank lines are skipped. A line that is not
 * JSON gives an error at the parse error's column ("last line is cut off" when it is the last line
 * and the text does not end in a line break); a line that is not an object gives an error on the
 * line; the other lines load. Never throws.
 * @param file path put on every problem (for files other than the one opened), or undefined.
 * @returns the problems, and the number of lines (counting a last line without a line break).
 */
export function forEachJsonlRecord(text: string, onRecord: (record: JsonlRecord) => void, file?: string): { problems: Problem[]; lineCount: number } {
  const problems: Problem[] = [];
  let line = 0;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = text.indexOf('\n', start);
    const last = end === -1;
    if (last) end = n;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (!(last && start === n) && !isBlank(text, start, stop)) {
      const body = text.slice(start, stop);
      let value: unknown;
      let ok = true;
      try {
        value = JSON.parse(body);
      } catch {
        ok = false;
      }
      if (!ok) {
        problems.push(badLineProblem(body, line, last && !text.endsWith('\n'), file));
      } else if (!isObject(value)) {
        problems.push(withFile({ severity: 'error', message: 'a JSONL record must be a JSON object; line skipped', range: lineRange(line, body.length) }, file));
      } else {
        onRecord({ line, start, length: body.length, value });
      }
    }
    if (last) break;
    start = end + 1;
    line++;
  }
  return { problems, lineCount: line + 1 };
}

/** All the records of a JSONL text, with the problems of its unusable lines (see {@link forEachJsonlRecord}). */
export function readJsonlRecords(text: string, file?: string): JsonlRecords {
  const records: JsonlRecord[] = [];
  const { problems, lineCount } = forEachJsonlRecord(text, (r) => records.push(r), file);
  return { records, problems, lineCount };
}

/** True when `text[start, stop)` is only whitespace (without copying it). */
function isBlank(text: string, start: number, stop: number): boolean {
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 0xfeff) return false;
  }
  return true;
}

function badLineProblem(body: string, line: number, cutOff: boolean, file: string | undefined): Problem {
  const errors: ParseError[] = [];
  parseTree(body, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const at = first ? Math.min(first.offset, body.length) : 0;
  const what = first ? printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : 'invalid JSON';
  return withFile(
    {
      severity: 'error',
      message: cutOff ? `last line is cut off (incomplete JSON: ${what}); the lines before it loaded` : `JSON syntax error: ${what}; line skipped`,
      range: { start: { line, character: at }, end: { line, character: Math.min(body.length, at + Math.max(first?.length ?? 1, 1)) } },
    },
    file,
  );
}

function withFile(p: Problem, file: string | undefined): Problem {
  if (file !== undefined) p.file = file;
  return p;
}

/** The range of a whole line of `length` characters. */
export function lineRange(line: number, length: number): Range {
  return { start: { line, character: 0 }, end: { line, character: length } };
}

