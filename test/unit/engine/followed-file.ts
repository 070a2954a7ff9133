/**
 * A trace file followed as a session follows it (src/trace/growing-load.ts over LiveFiles): each
 * read takes what was appended since the last, and its layout extends the last one's
 * (src/engine/structure-growth.ts). For the engine's tests of appends.
 */
import { followLayout } from '../../../src/engine/structure-growth';
import { GrowingLoad } from '../../../src/trace/growing-load';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import type { LoadedTrace } from '../../../src/trace/model';

/** One list for every load: another list of mappings starts the growing import again. */
const NO_MAPPINGS: MappingSource[] = [];

/** A reader of `file` that follows it: each call returns the trace as the file holds it now. */
export function followedFile(file: string): () => LoadedTrace {
  const live = new LiveFiles();
  const growing = new GrowingLoad();
  return () => {
    for (const p of live.paths()) live.refresh(p);
    const loaded = growing.load(file, live, NO_MAPPINGS);
    followLayout(loaded);
    return loaded;
  };
}
