/**
 * One shard of a corpus (`--shard i/n`): the trace files of shard `i` of `n`, so that a batch engine
 * (a job array, Spark, Ray) can run `n` commands side by side and union their outputs.
 *
 * A file's shard is stable: it depends only on its *group key* and `n`, never on the other files
 * of the corpus, the machine or `--jobs`. The key is the file's path relative to the folder searched
 * (the path as given for a file named on the command line), `/` between folders, without its
 * `.json`/`.jsonl` extension, cut at the outermost folder `X` that sits beside a file `X.json` or
 * `X.jsonl` (a Claude Code session `S.jsonl` and its sub-agent files `S/subagents/*.jsonl` share the
 * key `S`, so they land in one shard and the sub-agents are pulled into their session's trace).
 * With `--shard-by folder` the key is the first folder (or file, without extension) below the
 * folder searched: a corpus laid out one run per folder keeps each run's files together whatever
 * their formats (Codex child rollouts and OpenTelemetry logs files beside their parent file).
 *
 *   shard(key, n) = (first 4 bytes of SHA-1(key as UTF-8), big-endian unsigned) mod n   (0-based)
 *
 * Any engine can compute it (Python: `int.from_bytes(hashlib.sha1(key.encode()).digest()[:4], 'big') % n`).
 */
import { createHash } from 'node:crypto';

/** A shard of a corpus: `index` (0-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** How files are grouped into shards: by trace file (sub-agent folders with their session), or by the first folder below the folder searched. */
export type ShardBy = 'file' | 'folder';

/**
 * Parses `--shard i/n` (0 ≤ i < n, integers, n ≤ 1,000,000).
 * @returns the shard, or a sentence saying what is wrong.
 */
export function parseShard(text: string): Shard | string {
  const m = /^\s*(\d{1,7})\s*\/\s*(\d{1,7})\s*$/.exec(text);
  if (!m) return `--shard takes i/n, e.g. 0/4 (got "${text}")`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 1_000_000) return `--shard i/n needs 1 ≤ n ≤ 1,000,000 (got n = ${count})`;
  if (index >= count) return `--shard i/n needs 0 ≤ i < n, shards are counted from 0 (got ${index}/${count})`;
  return { index, count };
}

/** The shard (0-based, below `count`) of a group key: SHA-1 of its UTF-8 bytes, first 4 bytes big-endian, mod `count`. */
export function shardOfKey(key: string, count: number): number {
  return createHash('sha1').update(key, 'utf8').digest().readUInt32BE(0) % count;
}

const EXT = /\.jsonl?$/i;

/**
 * The group key of a trace file (see the module comment).
 * @param name the file's path relative to the folder searched (either separator), or the path given.
 * @param siblings true when the folder `dir` (relative, `/`-separated, '' for the top) holds a file
 *   named `base` (e.g. `S.jsonl`); asked only in `file` mode.
 */
export function groupKey(name: string, by: ShardBy, siblings: (dir: string, base: string) => boolean): string {
  const parts = name.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) return name;
  if (by === 'folder') return parts[0].replace(EXT, '');
  for (let k = 0; k < parts.length - 1; k++) {
    const dir = parts.slice(0, k).join('/');
    if (siblings(dir, `${parts[k]}.jsonl`) || siblings(dir, `${parts[k]}.json`)) return parts.slice(0, k + 1).join('/');
  }
  return parts.join('/').replace(EXT, '');
}

/**
 * Keeps the files of one shard.
 * @param files the whole corpus's files (each with the name rows carry, relative to the folder
 *   searched): the siblings {@link groupKey} asks about are looked up among them.
 * @returns those of shard `shard.index`, in the order given.
 */
export function filesOfShard<F extends { name: string }>(files: F[], shard: Shard, by: ShardBy): F[] {
  const names = new Set(files.map((f) => f.name.split(/[\\/]/).filter((p) => p !== '' && p !== '.').join('/')));
  const siblings = (dir: string, base: string) => names.has(dir ? `${dir}/${base}` : base);
  return files.filter((f) => shardOfKey(groupKey(f.name, by, siblings), shard.count) === shard.index);
}
