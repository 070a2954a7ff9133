/**
 * What every `otrace` command shares: reading a trace file, printing its problems the way
 * compilers do (`FILE:LINE:COLUMN: error|warning: message`, 1-based), numbers for people, and the
 * exit codes every command keeps ({@link EXIT}).
 */
import * as fs from 'node:fs';
import { loadTrace } from '../trace/formats';
import { loadTraceFile } from '../trace/load-file';
import { formatPosition, OriginArray, type LoadedTrace } from '../trace/model';
import { escapeJsonControls, visibleText } from '../trace/preview';
import { nodeFileAccess } from '../trace/node-files';
import { mappingApplies, parseMapping, readWithMapping } from '../trace/mapping';
import '../trace/importers';

/** The mapping file given with `--map FILE` (read by {@link load}), if any. */
let mapFile: string | undefined;

/** Sets the mapping file `load` reads traces with (`otrace --map FILE ...`). */
export function useMapping(file: string | undefined): void {
  mapFile = file;
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

/** Prints `otrace: message` and the usage to stderr and exits with code 2. */
export function fail(message: string): never {
  process.stderr.write(`otrace: ${message}\n${usage()}\n`);
  process.exit(EXIT.usage);
}

/** Prints `otrace: cannot read FILE: why` (no usage: the command line was right) and exits with code 2. */
export function cannotRead(file: string, err: unknown): never {
  process.stderr.write(`otrace: ${unreadable(file, err)}\n`);
  process.exit(EXIT.usage);
}

/** `cannot read FILE: why`, in words rather than the system's error code (ENOENT, EISDIR, EACCES). */
export function unreadable(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT' ? 'no such file or folder'
    : code === 'EISDIR' ? 'it is a folder (analyze and dataset stops take folders)'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : (err as Error | undefined)?.message ?? String(err);
  return `cannot read ${safe(file, 1000)}: ${why}`;
}

/** Reads a trace file of any known format; exits 2 when the file cannot be read. */
export function load(file: string): LoadedTrace {
  try {
    return readTraceAt(file);
  } catch (err) {
    cannotRead(file, err);
  }
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
  const text = fs.readFileSync(file, 'utf8');
  let mapText: string;
  try {
    mapText = fs.readFileSync(mapFile, 'utf8');
  } catch (err) {
    fail(`cannot read mapping ${mapFile}: ${(err as Error).message}`);
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
export const MAX_MESSAGE = 1000;

/**
 * Any value from a trace (a name, an id, a message), ready for the terminal: control characters
 * (C0, C1: ESC, BEL, 0x9B, 0x9D, ...) and bidi overrides/isolates made visible as escapes
 * (`\x1b`, `\u202e`), and cut to `max` characters with `…(N more)` (never inside a surrogate pair).
 * Every command prints trace text through it.
 */
export function safe(v: unknown, max = MAX_NAME): string {
  let s = String(v);
  if (s.length > max) {
    let cut = max;
    const c = s.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--;
    s = `${s.slice(0, cut)}…(${s.length - cut} more)`;
  }
  return visibleText(s);
}

/** JSON for the terminal: `JSON.stringify` (2-space indent) with C1 and bidi controls escaped too (same value). */
export function safeJson(value: unknown): string {
  return escapeJsonControls(JSON.stringify(value, null, 2));
}

/** Prints problems as FILE:LINE:COLUMN lines; returns the number of errors. */
export function printProblems(file: string, loaded: LoadedTrace, out: NodeJS.WritableStream): number {
  let errors = 0;
  for (const p of loaded.problems) {
    if (p.severity === 'error') errors++;
    out.write(`${safe(p.file ?? file, 1000)}:${formatPosition(p.range.start)}: ${p.severity}: ${safe(p.message, MAX_MESSAGE)}\n`);
  }
  return errors;
}

/** A command of the CLI: its usage line and what it runs (returns the exit code). */
export interface Command {
  usage: string;
  run(args: string[]): number;
}
