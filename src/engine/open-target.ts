/**
 * What "open PATH" means, for `npm start -- PATH`, `otrace open PATH` and the `vscode://` URI
 * handler: a trace file opens as it is (its folder is the workspace); a folder is the workspace and
 * its newest trace file opens. Only reads: nothing here writes or runs anything.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyPath } from './path-policy';
import { detectFormat } from '../trace/formats';
import '../trace/importers';
import { TRACE_FILE_NAME, traceFilesUnder } from './trace-files';
import { decodeText } from '../trace/text-encoding';
import { parentThreadOfText } from '../trace/importers/codex-rollout';

/** Where to open: the workspace folder and the trace file in it. */
export interface OpenTarget {
  folder: string;
  trace: string;
}

/** Folders not searched: Claude Code's sub-agent files belong to their session file. */
const SKIPPED_DIRS = new Set(['node_modules', 'subagents']);
/** How deep a folder is searched (Codex keeps sessions in YYYY/MM/DD/ below sessions/). */
const MAX_DEPTH = 4;
/** Bytes read to recognize a trace by content. */
const SNIFF_BYTES = 64 * 1024;

/** An error whose message is for the user as it is. */
export class OpenTargetError extends Error {}

/** `arg` as an absolute path: `~` is the home folder, relative paths start at `baseDir`. */
export function resolveArg(arg: string, baseDir: string): string {
  const expanded = arg === '~' ? os.homedir() : arg.startsWith('~/') ? path.join(os.homedir(), arg.slice(2)) : arg;
  return path.resolve(baseDir, expanded);
}

/** True when the start of the file at `file` is a trace of a known format. */
export function isTraceFile(file: string): boolean {
  if (!TRACE_FILE_NAME.test(file)) return false;
  const text = headOf(file);
  return text.trim() !== '' && detectFormat(text, file) !== undefined;
}

/** Candidate files below `dir` (newest first), to MAX_DEPTH, skipping hidden and SKIPPED_DIRS folders. */
function candidates(dir: string): { file: string; mtime: number }[] {
  const out: { file: string; mtime: number }[] = [];
  for (const file of traceFilesUnder(dir, { maxDepth: MAX_DEPTH, skipDir: (name) => name.startsWith('.') || SKIPPED_DIRS.has(name) })) {
    try {
      out.push({ file, mtime: fs.statSync(file).mtimeMs });
    } catch {
      /* gone meanwhile */
    }
  }
  return out.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
}

/**
 * The file a session's other file belongs to: a Kimi CLI `context.jsonl` -> the `wire.jsonl` beside it;
 * a Kimi Code sub-agent's `agents/<id>/wire.jsonl` -> `agents/main/wire.jsonl`; a Codex child rollout
 * (a sub-agent's, written just after its parent's: the newest file of a folder) -> the rollout of the
 * thread that spawned it, beside it, up the spawn chain; any other file -> itself.
 */
export function sessionFileOf(file: string): string {
  const dir = path.dirname(file);
  const base = path.basename(file);
  if (/^rollout-.*\.jsonl$/.test(base)) return rootRollout(file);
  const wire = path.join(dir, 'wire.jsonl');
  if (base === 'context.jsonl' && fs.existsSync(wire)) return wire;
  const main = path.join(path.dirname(dir), 'main', 'wire.jsonl');
  if (base === 'wire.jsonl' && path.basename(path.dirname(dir)) === 'agents' && path.basename(dir) !== 'main' && fs.existsSync(main)) return main;
  return file;
}

/** Spawns followed up from a child rollout to its root (a guard against cycles in odd files). */
const MAX_SPAWN_HOPS = 8;

/** The rollout of the thread that spawned `file`'s, beside it, up to the root; `file` when it has no parent there. */
function rootRollout(file: string): string {
  let at = file;
  for (let hop = 0; hop < MAX_SPAWN_HOPS; hop++) {
    const parent = parentThreadOfText(headOf(at));
    const dir = path.dirname(at);
    const name = parent && /^[\w-]+$/.test(parent) ? listed(dir).find((n) => n.startsWith('rollout-') && n.endsWith(`-${parent}.jsonl`)) : undefined;
    if (!name) return at;
    at = path.join(dir, name);
  }
  return at;
}

/** The first {@link SNIFF_BYTES} of a file as text ('' when it cannot be read). */
function headOf(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(SNIFF_BYTES);
    return decodeText(buf.subarray(0, fs.readSync(fd, buf, 0, SNIFF_BYTES, 0))).text;
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function listed(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The newest trace file below `dir` (a session's other file counts as its session file, {@link sessionFileOf}), or undefined. */
export function newestTrace(dir: string): string | undefined {
  // newest first, stopping at the first trace: a session file is looked up (a Codex rollout's head read) only that far
  for (const c of candidates(dir)) {
    const file = sessionFileOf(c.file);
    if (isTraceFile(file)) return file;
  }
  return undefined;
}

/**
 * The folder and trace file to open for the absolute path `target`.
 * @throws OpenTargetError with a message for the user when it is missing or holds no trace.
 */
export function openTarget(target: string): OpenTarget {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    throw new OpenTargetError(`no such file or folder: ${target}`);
  }
  if (stat.isDirectory()) {
    const trace = newestTrace(target);
    if (!trace) throw new OpenTargetError(`no trace file (*.jsonl, *.json of a known format) in ${target}`);
    return { folder: target, trace };
  }
  if (!stat.isFile()) throw new OpenTargetError(`not a file or folder: ${target}`);
  return { folder: path.dirname(target), trace: target };
}

/** The path of the `vscode://otrace.otrace/open?path=…` request. */
export const OPEN_REQUEST_PATH = '/open';

/**
 * The trace file a `vscode://otrace.otrace/open?path=ABSOLUTE_PATH` request (its URI path and decoded query)
 * may open: an absolute path to a trace file of a known format, or a folder (its newest trace).
 * @throws OpenTargetError with a message for the user for anything else.
 */
export function traceOfOpenRequest(uriPath: string, query: string): string {
  if (uriPath !== OPEN_REQUEST_PATH) throw new OpenTargetError(`unknown request ${uriPath}`);
  // vscode.Uri gives the query decoded, so a path with & or + in it is the rest of the query as it is.
  const requested = query.startsWith('path=') ? query.slice('path='.length) : undefined;
  if (!requested) throw new OpenTargetError('the link names no file (?path=...)');
  if (!path.isAbsolute(requested)) throw new OpenTargetError(`not an absolute path: ${requested}`);
  // The openable-file policy's path checks: file paths only (no scheme), symbolic links resolved.
  // The link names the file itself, so where it lies is not asked about as for a path in a trace.
  const verdict = classifyPath(path.normalize(requested), path.normalize(requested), []);
  if (verdict.kind === 'refuse') throw new OpenTargetError(`otrace opens only files, not "${verdict.scheme}:" links`);
  if (verdict.kind === 'missing') throw new OpenTargetError(`no such file or folder: ${verdict.path}`);
  const { trace } = openTarget(verdict.path);
  if (!isTraceFile(trace)) throw new OpenTargetError(`not a trace of a known format: ${trace}`);
  return trace;
}
