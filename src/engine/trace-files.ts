/**
 * The files below a folder that may be traces (`*.json`, `*.jsonl`), for the commands and the
 * open policy that search folders (`otrace analyze DIR`, `otrace dataset stops DIR`, "open the
 * newest trace of a folder"). Only reads.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Names of files that may be traces. */
export const TRACE_FILE_NAME = /\.jsonl?$/i;

/**
 * The `*.json` / `*.jsonl` files below `dir`, in the order the folders list them (callers sort).
 * Folders that cannot be listed are passed over.
 * @param maxDepth folders below `dir` searched (0: `dir` alone); unlimited by default.
 * @param skipDir true for a folder name not to search (`node_modules`, hidden folders, ...).
 */
export function traceFilesUnder(dir: string, options: { maxDepth?: number; skipDir?: (name: string) => boolean } = {}): string[] {
  const { maxDepth = Infinity, skipDir = () => false } = options;
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth && !skipDir(e.name)) walk(p, depth + 1);
      } else if (e.isFile() && TRACE_FILE_NAME.test(e.name)) out.push(p);
    }
  };
  walk(dir, 0);
  return out;
}
