/**
 * How V8 counts the memory ArrayBuffers hold, in the processes otrace owns (the engine's own
 * process, the `otrace` command, the bench): never in a process it shares (the extension host,
 * where the engine runs as a thread when `otrace.engine.ownProcess` is off).
 *
 * Before V8 14.8, every byte allocated in ArrayBuffers since the last mark-compact, live or dead,
 * starts a mark-compact of the whole heap once it passes 64 MB. An analysis of 1M events holds
 * about 250 MB of typed arrays while it runs (its arena, src/analysis/arena.ts, and the columns
 * it keeps), none of which a collection can free, beside the 350 MB of the trace's event objects:
 * two or three mark-compacts per analysis that free nothing, 170-200 ms of pause and 0.5 s of
 * marking on the collector's threads each. V8's flag `--external-memory-accounted-in-global-limit`
 * counts what buffers hold inside the limit the heap grows by instead (V8 bug 361124432; the
 * default, and no longer a flag, from V8 14.8: commits 6a5039d9db and cf511a65ad).
 */
import * as v8 from 'node:v8';

/** The V8 flag, as `v8.setFlagsFromString` takes it. */
export const BUFFERS_IN_HEAP_LIMIT_FLAG = '--external-memory-accounted-in-global-limit';

/**
 * Whether a V8 of `version` (`process.versions.v8`: "13.6.233.17-node.63", "14.2.231.14-electron.0")
 * needs the flag and knows it: from 13.6 (Node 24's, the oldest this was checked on; an older one
 * may not know the flag and would print an error for it) until 14.8 (where it is the default).
 */
export function needsBuffersInHeapLimitFlag(version: string): boolean {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (!Number.isFinite(major) || !Number.isFinite(minor)) return false;
  const v = major * 100 + minor;
  return v >= 1306 && v < 1408;
}

/**
 * Sets the flag in this process when its V8 needs it ({@link needsBuffersInHeapLimitFlag}); call it
 * first thing in a process otrace owns, never in one it shares (the flag is the whole process's).
 * @returns true when the flag was set.
 */
export function countBuffersInHeapLimit(version: string = process.versions.v8): boolean {
  if (!needsBuffersInHeapLimitFlag(version)) return false;
  v8.setFlagsFromString(BUFFERS_IN_HEAP_LIMIT_FLAG);
  return true;
}
