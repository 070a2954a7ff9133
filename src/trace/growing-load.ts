/**
 * Loading a trace file that is followed as it grows: through its format's growing import
 * ({@link GrowingImport}: the lines appended since the last load go into the state the import
 * kept) when the format has one and no mapping file reads it; else, or when the import cannot go
 * on (a file truncated, replaced or rewritten: read whole again), a whole read, which starts a new
 * growing import when it can. Pure: no `vscode`, no `node:fs` (files come through {@link GrowingFiles}).
 */
import { detectFormat, type GrowingImport, type TraceFormat } from './formats';
import type { GrowingFiles } from './jsonl-feed';
import { chooseMapping, loadWithMappings, type MappingSource } from './mapping-choice';
import type { LoadedTrace } from './model';

/** While its complete lines are shorter than this (UTF-16 units), a growing file's format is detected again on each load: more lines can change it. */
export const DETECT_AGAIN_BELOW = 1 << 20;

/** How the loads of a {@link GrowingLoad} went: from the state kept, or whole. */
export interface GrowingCounts {
  /** Loads that read only what was appended. */
  appended: number;
  /** Loads that read the files whole (the first one, rewrites, formats without a growing import). */
  whole: number;
}

/** The growing import of one trace file, kept between loads (one per session). */
export class GrowingLoad {
  private current: { path: string; format: TraceFormat; mappings: readonly MappingSource[]; imp: GrowingImport } | undefined;
  readonly counts: GrowingCounts = { appended: 0, whole: 0 };

  /**
   * The trace of the file at `path` as it is now in `files`.
   * @param mappings the mapping files in use: a file a mapping reads is read whole each time.
   * @returns what `loadWithMappings` gives on the file's text. Never throws for bad content.
   */
  load(path: string, files: GrowingFiles, mappings: readonly MappingSource[]): LoadedTrace {
    const c = this.current;
    if (c && c.path === path && c.mappings === mappings && this.sameFormat(c.format, path, files)) {
      const loaded = tryUpdate(c.imp);
      if (loaded) {
        this.counts.appended++;
        return loaded;
      }
    }
    this.current = undefined;
    this.counts.whole++;
    const text = files.readText(path) ?? '';
    return this.start(text, path, files, mappings) ?? loadWithMappings(text, path, mappings, files);
  }

  /** Lets the import take lists of its own now, while nothing waits (see {@link GrowingImport.ownLists}). */
  ownLists(): void {
    this.current?.imp.ownLists?.();
  }

  /** Forgets the state kept (the file is read from a document's text now, or from other files). */
  drop(): void {
    this.current = undefined;
  }

  /** A new growing import read over the whole file, when its format has one and no mapping reads it. */
  private start(text: string, path: string, files: GrowingFiles, mappings: readonly MappingSource[]): LoadedTrace | undefined {
    if (text.trim() === '' || chooseMapping(mappings, text, path)) return undefined;
    const format = detectFormat(text, path);
    if (!format?.grow) return undefined;
    const imp = format.grow(path, files);
    const loaded = tryUpdate(imp);
    if (loaded) this.current = { path, format, mappings, imp };
    return loaded;
  }

  /** False when the file no longer reads as `format` (checked while it is short) or is blank. */
  private sameFormat(format: TraceFormat, path: string, files: GrowingFiles): boolean {
    const grown = files.grown(path);
    if (!grown) return false;
    if (grown.complete >= DETECT_AGAIN_BELOW) return true;
    const text = files.readText(path) ?? '';
    return text.trim() !== '' && detectFormat(text, path) === format;
  }
}

/** The import's update, or undefined when it cannot go on or fails (the whole read reports why). */
function tryUpdate(imp: GrowingImport): LoadedTrace | undefined {
  try {
    return imp.update();
  } catch {
    return undefined;
  }
}
