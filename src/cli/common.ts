/**
 * What every `otrace` command shares: reading a trace file, printing its problems the way
 * compilers do (`FILE:LINE:COLUMN: error|warning: message`, 1-based), numbers for people, and the
 * exit codes every command keeps ({@link EXIT}).
 */
import * as fs from 'node:fs';
import { loadTrace } from '../trace/formats';
import { loadTraceColumnsFile, loadTraceFile } from '../trace/load-file';
import { analysedFromColumns } from '../trace/columns/loaded-columns';
import { decodeText } from '../trace/text-encoding';
import { formatPosition, OriginArray, type LoadedTrace, type Position } from '../trace/model';
import { escapeJsonControls } from '../trace/preview';
import { codePointMark, plainLabel, visibleControls } from '../shared/untrusted-text';
import { nodeFileAccess } from '../trace/node-files';
import { mappingApplies, parseMapping, readWithMapping } from '../trace/mapping';
import '../trace/importers';

/** The mapping file given with `--map FILE` (read by {@link load}), if any. */
let mapFile: string | undefined;

/** Sets the mapping file `load` reads traces with (`otrace --map FILE ...`). */
export function useMapping(file: string | undefined): void {
  mapFile = file;
}

/** The mapping file set by {@link useMapping}, if any (passed on to worker threads). */
export function mappingFile(): string | undefined {
  return mapFile;
}

/** One line per command, printed on a usage error and by `otrace help`. */
export const USAGE_LINES: string[] = [];

/** The usage text of every registered command. */
export function usage(): string {
  return `usage:\n${USAGE_LINES.map((l) => `  ${l}`).join('\n')}`;
}

/**
 * The exit codes of every command: `ok` when every trace read has no error; `problems` when the
 * output is written but something in it is wrong (a trace with errors, whose bad lines were
 * skipped; a file of no known format; no trace found); `usage` for a command line that cannot run
 * or a path that cannot be read.
 */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/** Prints `otrace: message` (controls shown, one line of at most {@link MAX_LINE} characters) and the usage to stderr and exits with code 2. */
export function fail(message: string): never {
  process.stderr.write(`otrace: ${terminalLine(message)}\n${usage()}\n`);
  process.exit(EXIT.usage);
}

/** Prints `otrace: cannot read FILE: why` (no usage: the command line was right) and exits with code 2. */
export function cannotRead(file: string, err: unknown): never {
  process.stderr.write(`otrace: ${terminalLine(unreadable(file, err))}\n`);
  process.exit(EXIT.usage);
}

/** `cannot read FILE: why`, in words rather than the system's error code (ENOENT, EISDIR, EACCES). */
export function unreadable(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT' ? 'no such file or folder'
    : code === 'EISDIR' ? 'it is a folder (analyze and dataset stops take folders)'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : safe((err as Error | undefined)?.message ?? String(err), MAX_MESSAGE); // the system's message names the path
  return `cannot read ${safePath(file)}: ${why}`;
}

/** Reads a trace file of any known format; exits 2 when the file cannot be read. */
export function load(file: string): LoadedTrace {
  try {
    return readTraceAt(file);
  } catch (err) {
    cannotRead(file, err);
  }
}

/** One trace file read for a command over one file: the trace, and the exit code its problems give (1 with errors, else 0). */
export interface OneTrace {
  loaded: LoadedTrace;
  exit: number;
}

/**
 * Reads one trace file for a command (summary, stats, analyze, convert) and prints its problems
 * on stderr (`FILE:LINE:COLUMN: severity: message`).
 * @returns the trace and its exit code, or the exit code to return at once (1) when the file is
 *   no trace of a known format. Exits (code 2) when the file cannot be read.
 */
export function loadOne(file: string): OneTrace | number {
  const loaded = load(file);
  if (loaded.format === 'unknown') return notATrace(file, loaded);
  return withProblemsPrinted(file, loaded);
}

/** `loaded` with the exit code its problems give, once they are printed on stderr. */
function withProblemsPrinted(file: string, loaded: LoadedTrace): OneTrace {
  const errors = printProblems(file, loaded, process.stderr);
  return { loaded, exit: errors > 0 ? EXIT.problems : EXIT.ok };
}

/**
 * {@link loadOne} for a command that analyses the trace (`otrace analyze FILE`): an otrace JSONL
 * file of one trace is read into columns (src/trace/columns: no object per event, the analysis's
 * index reads the columns), any other file as {@link loadOne} reads it. The same problems either
 * way. Exits (code 2) when the file cannot be read.
 */
export function loadAnalysed(file: string): OneTrace | number {
  if (!mapFile) {
    let loaded: LoadedTrace | undefined;
    try {
      const columns = loadTraceColumnsFile(file);
      loaded = columns && analysedFromColumns(columns);
    } catch (err) {
      // a file that cannot be read is read again below, which says why; anything else is a fault of ours
      if (typeof (err as { code?: unknown } | null)?.code !== 'string') throw err;
    }
    if (loaded) return withProblemsPrinted(file, loaded);
  }
  return loadOne(file);
}

/** Problems of a file that is no trace (format `unknown`): printed, then exit code 1 for the command to return. */
export function notATrace(file: string, loaded: LoadedTrace): number {
  printProblems(file, loaded, process.stderr);
  return EXIT.problems;
}

/** Number of error problems of a trace read. */
export function errorCount(loaded: LoadedTrace): number {
  let n = 0;
  for (const p of loaded.problems) if (p.severity === 'error') n++;
  return n;
}

/** Reads a trace file of any known format; the file system's error when it cannot be read (for commands over many files). */
export function tryLoad(file: string): LoadedTrace | { error: unknown } {
  try {
    return readTraceAt(file);
  } catch (error) {
    return { error };
  }
}

/**
 * A trace from disk: through the mapping file when one is given and applies, else the built-in
 * formats (otrace JSONL streamed at any size, other formats up to 200 MB: load-file.ts).
 * @throws the file system's error when the file cannot be read (an unreadable mapping exits 2).
 */
function readTraceAt(file: string): LoadedTrace {
  if (!mapFile) return loadTraceFile(file, nodeFileAccess);
  const text = decodeText(fs.readFileSync(file)).text;
  let mapText: string;
  try {
    mapText = fs.readFileSync(mapFile, 'utf8');
  } catch (err) {
    fail(`cannot read mapping ${safePath(mapFile)}: ${safe((err as Error).message, MAX_MESSAGE)}`);
  }
  const { mapping, problems } = parseMapping(mapText, mapFile);
  if (!mapping) return { format: 'unknown', trace: { events: [], edges: [] }, eventOrigins: new OriginArray(), edgeOrigins: new OriginArray(), problems };
  if (mappingApplies(mapping, text, file)) {
    const loaded = readWithMapping(text, file, mapping);
    loaded.problems.unshift(...problems);
    return loaded;
  }
  const loaded = loadTrace(text, file, nodeFileAccess);
  loaded.problems.unshift({ severity: 'info', file: mapFile, message: `the mapping does not apply to ${file} (files.glob / files.required); read with the built-in formats`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
  return loaded;
}

/** A number for people: at most 3 decimals. */
export const num = (n: number): string => (Math.abs(n) < 1e15 ? String(Math.round(n * 1000) / 1000) : String(n)); // n * 1000 would overflow 1e308

/** Longest name or id printed whole; longer ones are cut (see {@link safe}). */
export const MAX_NAME = 120;
/** Longest message printed whole. */
export const MAX_MESSAGE = 600;
/** Longest path printed whole (a problem line holds a path and a message). */
export const MAX_PATH = 300;
/** Longest line of text output (characters): a line from trace content is cut to it ({@link terminalLine}). */
export const MAX_LINE = 1000;
/** Characters of a list's items on one line before the rest are counted (see {@link clipList}). */
export const MAX_LIST = 800;

/**
 * Any value from a trace (a name, an id, a message, a file name), ready for the terminal: control
 * characters (C0, DEL, C1: NUL, ESC, BEL, U+0085, U+009B CSI, U+009D OSC, ...) and bidi marks,
 * overrides and isolates shown as `⟨U+202E⟩` (src/shared/untrusted-text.ts visibleControls), runs of
 * white space (newlines included) as one space, and cut to `max` characters with `…(N more)`
 * (never inside a surrogate pair or a `⟨U+…⟩`). Every command prints trace text through it.
 */
export function safe(v: unknown, max = MAX_NAME): string {
  return cut(plainLabel(String(v)), max);
}

/**
 * A file path for the terminal, as {@link safe} makes trace text but with its white-space controls
 * shown too (a name holding a newline or a tab reads `a⟨U+000A⟩b`, not `a b`: two names must not
 * print alike), cut to `max` characters.
 */
export function safePath(v: unknown, max = MAX_PATH): string {
  return safe(String(v).replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, codePointMark), max);
}

/**
 * Where a record is, as a terminal link: `FILE:LINE`, with `:COLUMN` (1-based) when the record does
 * not start its line (a JSON document on one line: every record on line 1 made `FILE:1` no help).
 * `file` is made safe for the terminal.
 */
export function recordPlace(file: string, start: Position): string {
  return `${safePath(file)}:${start.character > 0 ? formatPosition(start) : start.line + 1}`;
}

/** `text` cut to `max` characters with `…(N more)`, N the characters left out; never inside a surrogate pair or a `⟨U+…⟩`. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = max;
  const c = text.charCodeAt(at - 1);
  if (c >= 0xd800 && c <= 0xdbff) at--;
  const open = text.lastIndexOf('⟨', at - 1);
  if (open >= 0 && open > at - 8 && text.indexOf('⟩', open) >= at) at = open; // `⟨U+202E⟩` is 8 characters
  return `${text.slice(0, at)}…(${(text.length - at).toLocaleString('en-US')} more)`;
}

/**
 * One line for the terminal: controls shown (as {@link safe} does; text made by {@link safe} stays
 * as it is) and cut to {@link MAX_LINE} characters, the count of what was left out included.
 */
export function terminalLine(line: string): string {
  const shown = visibleControls(line).replace(/[\r\n]+/g, ' ');
  return shown.length <= MAX_LINE ? shown : cut(shown, MAX_LINE - 20);
}

/** Writes `lines` to `out`, each through {@link terminalLine}. */
export function writeLines(out: { write(text: string): unknown }, lines: readonly string[]): void {
  out.write(lines.map(terminalLine).join('\n') + '\n');
}

/**
 * A list for one line: the items, each written by `show` (which makes trace text safe, e.g. with
 * {@link safe}), joined by `, ` as long as they fit in `maxChars` (at least one), then
 * `… and 999,990 more`: a trace of a million agents is one short line, not one of millions of
 * characters. `show` is called only for the items written.
 */
export function clipList<T>(items: readonly T[], show: (item: T) => string, maxChars = MAX_LIST): string {
  const shown: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = show(item);
    const add = text.length + (shown.length ? 2 : 0);
    if (shown.length > 0 && used + add > maxChars) break;
    shown.push(text);
    used += add;
  }
  const rest = items.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, … and ${rest.toLocaleString('en-US')} more` : shown.join(', ');
}

/** JSON for the terminal: `JSON.stringify` (2-space indent) with C1 and bidi controls escaped too (same value). */
export function safeJson(value: unknown): string {
  return escapeJsonControls(JSON.stringify(value, null, 2));
}

/** Prints problems as FILE:LINE:COLUMN lines (each at most {@link MAX_LINE} characters); returns the number of errors. */
export function printProblems(file: string, loaded: Pick<LoadedTrace, 'problems'>, out: NodeJS.WritableStream): number {
  let errors = 0;
  const lines: string[] = [];
  for (const p of loaded.problems) {
    if (p.severity === 'error') errors++;
    lines.push(`${safePath(p.file ?? file)}:${formatPosition(p.range.start)}: ${p.severity}: ${safe(p.message, MAX_MESSAGE)}`);
  }
  if (lines.length) writeLines(out, lines);
  return errors;
}

/** A command of the CLI: its usage line and what it runs (returns the exit code, or a promise of it for a command that waits on worker threads or a database). */
export interface Command {
  usage: string;
  run(args: string[]): number | Promise<number>;
}
