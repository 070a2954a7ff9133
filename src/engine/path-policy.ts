/**
 * The openable-file policy as a pure decision (no `vscode`, unit-tested): given a path a trace
 * names, may it open directly, must the user confirm, is it missing, or is it refused?
 * - a plain path or `file:` URI, resolved against the trace's folder, then through symbolic links;
 * - inside a workspace folder, or one of the trace's own files (the trace, its sub-agent files):
 *   open; elsewhere, the trace's own folder included, ask: opening a trace (from a link, a recent
 *   file) is no consent to open its neighbours;
 * - any other scheme (`command:`, `http:`, `vscode:` …): refused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The decision, with the resolved file system path where there is one. */
export type PathVerdict =
  | { kind: 'open'; path: string }
  | { kind: 'ask'; path: string }
  | { kind: 'missing'; path: string }
  | { kind: 'refuse'; scheme: string };

/** `scheme:` at the start (two letters or more: `C:` is a Windows drive). */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

/**
 * Classifies a path named by a trace.
 * @param target the path as written (relative paths are relative to the trace's folder)
 * @param traceFile file system path of the trace file
 * @param roots file system paths of the workspace folders
 * @param traceFiles the files the trace was read from (absolute, or relative to the trace's folder;
 *   `''` is the trace file itself), which open without asking wherever they are
 */
export function classifyPath(target: string, traceFile: string, roots: readonly string[], traceFiles: readonly string[] = ['']): PathVerdict {
  let file = target;
  const scheme = SCHEME.exec(target)?.[1];
  if (scheme) {
    if (scheme.toLowerCase() !== 'file') return { kind: 'refuse', scheme };
    try {
      file = fileURLToPath(target);
    } catch {
      return { kind: 'refuse', scheme };
    }
  }
  const absolute = path.resolve(path.dirname(traceFile), file);
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    return { kind: 'missing', path: absolute };
  }
  const inside = (root: string) => {
    const rel = path.relative(realOr(root), real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const own = traceFiles.some((f) => realOr(path.resolve(path.dirname(traceFile), f || traceFile)) === real);
  return own || roots.some(inside) ? { kind: 'open', path: real } : { kind: 'ask', path: real };
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
