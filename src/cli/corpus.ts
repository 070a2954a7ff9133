/**
 * Commands over many traces (`otrace dataset stops`, `otrace analyze DIR`): the trace files under the
 * paths given, each counted once, with a progress bar on stderr when a directory is searched and
 * stderr is a terminal.
 *
 * A file that another file pulls in (a Claude Code sub-agent file under `<session>/subagents/`, a
 * Codex child rollout read with its parent) is part of its parent's trace: it is not a trace of its
 * own. Parents are read first (shallower paths first, then by name); a file already pulled in is
 * skipped unread, and a file read before the parent that pulls it in is dropped from the results.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { originsOf, type LoadedTrace } from '../trace/model';
import { traceFilesUnder } from '../engine/trace-files';
import { errorCount, EXIT, safe, safePath, terminalLine, tryLoad, unreadable } from './common';

/** Names that are never traces (mapping files) and folders never searched. */
const NOT_TRACE = /\.otrace-map\.json$|\.labels\.jsonl$/i; // mapping files and labels sidecars
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** What a run over a corpus read and left out. */
export interface CorpusSummary {
  /** Traces read (each counted once). */
  traces: number;
  /** Files left out because a parent trace pulls them in. */
  pulled_in: string[];
  /** Files of no known trace format. */
  not_traces: string[];
  /** Files that could not be read. */
  unreadable: string[];
  /** Why, one line each (`cannot read FILE: no such file or folder`), index for index with `unreadable`. */
  unreadable_why: string[];
  /** Traces read with error problems (their bad lines skipped). */
  with_errors: number;
}

/** A trace file found: its path and the name rows carry (relative to the directory searched, when one was). */
interface Found {
  file: string;
  name: string;
  depth: number;
}

/** The .json / .jsonl files under each path (a file path is taken as given), parents before the files they hold. */
export function traceFiles(paths: string[]): Found[] {
  const out: Found[] = [];
  const seen = new Set<string>();
  const add = (file: string, name: string) => {
    const abs = path.resolve(file);
    if (seen.has(abs)) return;
    seen.add(abs);
    out.push({ file, name, depth: name.split(/[\\/]/).length });
  };
  for (const p of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      add(p, p); // reported unreadable when read
      continue;
    }
    if (!stat.isDirectory()) {
      add(p, p);
      continue;
    }
    for (const full of traceFilesUnder(p, { skipDir: (name) => SKIP_DIRS.has(name) })) if (!NOT_TRACE.test(full)) add(full, path.relative(p, full) || path.basename(full));
  }
  return out.sort((a, b) => a.depth - b.depth || byName(a.name, b.name));
}

/**
 * Names in natural order (`run-2` before `run-10`): the order of `localeCompare(b, undefined,
 * { numeric: true })`, which is specified as this collator's compare (ECMA-402), with one collator
 * made once: `localeCompare` with options makes one per call (0.6 s to sort 10,000 names).
 */
const byName = new Intl.Collator(undefined, { numeric: true }).compare;

/** A progress bar on stderr (only when it is a terminal): `[#####.....] 12/61 name`. */
export function progressBar(total: number, enabled: boolean): { tick(name: string): void; done(): void } {
  const on = enabled && total > 1 && process.stderr.isTTY === true;
  let k = 0;
  const width = 30;
  return {
    tick(name) {
      k++;
      if (!on) return;
      const fill = Math.round((width * k) / total);
      const shown = safe(name, Infinity);
      const label = shown.length > 40 ? `…${shown.slice(-39)}` : shown; // a file name from the folder: controls and bidi shown
      process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${k}/${total} ${label}\u001b[K`);
    },
    done() {
      if (on) process.stderr.write('\r\u001b[K');
    },
  };
}

/**
 * Reads every trace under `paths` once and calls `visit` on it; returns the visits' results in file
 * order (those of files a parent pulls in removed) and what was left out.
 */
export function forEachTrace<R>(paths: string[], visit: (loaded: LoadedTrace, name: string, file: string) => R): { results: { name: string; result: R }[]; summary: CorpusSummary } {
  const files = traceFiles(paths);
  const searchedDir = paths.some((p) => {
    try {
      return fs.statSync(p).isDirectory();
    } catch {
      return false;
    }
  });
  const bar = progressBar(files.length, searchedDir);
  const pulledIn = new Map<string, string>(); // absolute file -> its parent's name
  const results: { abs: string; name: string; errors: boolean; result: R }[] = [];
  const summary: CorpusSummary = { traces: 0, pulled_in: [], not_traces: [], unreadable: [], unreadable_why: [], with_errors: 0 };
  for (const f of files) {
    bar.tick(f.name);
    const abs = path.resolve(f.file);
    if (pulledIn.has(abs)) {
      summary.pulled_in.push(f.name);
      continue;
    }
    const loaded = tryLoad(f.file);
    if ('error' in loaded) {
      summary.unreadable.push(f.name);
      summary.unreadable_why.push(unreadable(f.file, loaded.error));
      continue;
    }
    if (loaded.format === 'unknown') {
      summary.not_traces.push(f.name);
      continue;
    }
    for (const o of [...originsOf(loaded.eventOrigins), ...originsOf(loaded.edgeOrigins)]) {
      if (!o?.file) continue;
      const child = path.resolve(o.file); // importers name other files by the path the parent was opened with
      if (child !== abs) pulledIn.set(child, f.name);
    }
    results.push({ abs, name: f.name, errors: errorCount(loaded) > 0, result: visit(loaded, f.name, f.file) });
  }
  bar.done();
  // a file read before the parent that pulls it in
  const kept = results.filter((r) => {
    if (!pulledIn.has(r.abs)) return true;
    summary.pulled_in.push(r.name);
    return false;
  });
  summary.traces = kept.length;
  summary.with_errors = kept.filter((r) => r.errors).length;
  return { results: kept.map(({ name, result }) => ({ name, result })), summary };
}

/**
 * Ends a command over many traces: prints why each unreadable file could not be read, or that no
 * trace was found, to stderr, and returns the exit code ({@link EXIT}): 2 when a file could not be
 * read, 1 when no trace was found or a trace had errors, else 0.
 * @param paths the paths the command was given (named in the "no traces" message).
 */
export function corpusExit(summary: CorpusSummary, paths: string[]): number {
  for (const why of summary.unreadable_why) process.stderr.write(`otrace: ${terminalLine(why)}\n`);
  if (summary.traces === 0 && summary.unreadable.length === 0) {
    const skipped = summary.not_traces.length ? ` (${summary.not_traces.length} .json/.jsonl files of no known trace format)` : '';
    process.stderr.write(`otrace: ${terminalLine(`no traces found in ${paths.map((p) => safePath(p)).join(', ')}${skipped}`)}\n`);
  }
  if (summary.unreadable.length) return EXIT.usage;
  return summary.traces === 0 || summary.with_errors > 0 ? EXIT.problems : EXIT.ok;
}
