/**
 * `npx tsx scripts/output-hash.ts [--generated 10k,100k] DIR...`: a sha256 of what otrace makes of
 * every trace file under the given folders (and of generated bench traces), to show a speed change
 * left the results alone. A development script, not a test.
 *
 * Per file (`*.json`, `*.jsonl`, recursively, in sorted order) it hashes:
 * - `loadTrace` on the file's text (the editor's reader) and `analyzeTrace` of it;
 * - `loadTraceFile` from disk (the CLI's reader: otrace JSONL streamed from bytes) and its analysis.
 * Each as JSON (Maps and Sets as arrays; errors as their message). Prints one line per file and the
 * total last; `--each` also prints the per-part hashes of each file (to find what changed).
 * `--generated SIZES` adds the bench generator's traces (bench/_generate.ts, with and without long
 * content), written to the OS temp folder and read back from disk.
 * `--sort-keys` writes each plain object's fields in sorted order: a hash that ignores the order of
 * an object's fields (to show a change altered only that order).
 */
import * as fs from 'node:fs';
import { analyzeTrace } from '../src/analysis';
import { loadTrace } from '../src/trace/formats';
import { loadTraceFile } from '../src/trace/load-file';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import { runHashes, sha } from './hash-run';


const SORT_KEYS = process.argv.includes('--sort-keys');

function replacer(_key: string, value: unknown): unknown {
  if (SORT_KEYS && typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) sorted[k] = (value as Record<string, unknown>)[k];
    return sorted;
  }
  if (value instanceof Map) return { map: [...value.entries()] };
  if (value instanceof Set) return { set: [...value] };
  if (value instanceof Error) return { error: value.message };
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}


function part(f: () => unknown): string {
  try {
    return sha(JSON.stringify(f(), replacer) ?? 'undefined');
  } catch (err) {
    return sha(`threw: ${(err as Error).message}`);
  }
}

/** The per-part hashes of one file: text load, its analysis, disk load, its analysis. */
function hashFile(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const fromText = (() => {
    try {
      return loadTrace(text, file, nodeFileAccess);
    } catch (err) {
      return err as Error;
    }
  })();
  const fromDisk = (() => {
    try {
      return loadTraceFile(file, nodeFileAccess);
    } catch (err) {
      return err as Error;
    }
  })();
  const analyze = (l: unknown) => () => (l instanceof Error ? l : analyzeTrace(l as Parameters<typeof analyzeTrace>[0]));
  return [part(() => fromText), part(analyze(fromText)), part(() => fromDisk), part(analyze(fromDisk))];
}

runHashes(hashFile);
