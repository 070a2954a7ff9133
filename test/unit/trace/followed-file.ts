/**
 * A trace file followed as a session follows it (LiveFiles + GrowingLoad), for the tests that an
 * analysis or a layout following appends equals a whole one: pieces appended, each load beside a
 * whole read of the same bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadTrace } from '../../../src/trace/formats';
import { GrowingLoad } from '../../../src/trace/growing-load';
import { LiveFiles } from '../../../src/trace/live-files';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import type { LoadedTrace } from '../../../src/trace/model';
import { nodeFileAccess } from '../../../src/trace/node-files';

/** One list of no mappings for every load: the growing import starts again on another list. */
const NO_MAPPINGS: MappingSource[] = [];

/** A trace file in `dir` written with `first`, then appended to. */
export class FollowedFile {
  readonly file: string;
  private readonly live = new LiveFiles();
  private readonly growing = new GrowingLoad();
  private static count = 0;

  constructor(dir: string, first: string) {
    this.file = path.join(dir, `t${FollowedFile.count++}.otrace.jsonl`);
    fs.writeFileSync(this.file, first);
  }

  append(text: string): void {
    fs.appendFileSync(this.file, text);
  }

  /** What is on disk now: as the growing import follows it (`loaded`), and read whole from its text (`fresh`). */
  load(): { loaded: LoadedTrace; fresh: LoadedTrace } {
    for (const p of this.live.paths()) this.live.refresh(p);
    const loaded = this.growing.load(this.file, this.live, NO_MAPPINGS);
    return { loaded, fresh: loadTrace(fs.readFileSync(this.file, 'utf8'), this.file, nodeFileAccess) };
  }
}
