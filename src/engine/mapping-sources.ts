/**
 * Mapping files as the engine reads them: the host finds them (settings, workspace) and sends
 * their texts; here each is parsed into a {@link MappingSource} (src/trace/mapping-choice.ts) with
 * its problems, positioned in the mapping file. No `vscode`; the only I/O is resolving a trace
 * file's real path when a workspace's mapping is asked whether it may read it.
 */
import { parseMapping } from '../trace/mapping';
import { insideFolders } from './mapping-scope';
import type { MappingSource } from '../trace/mapping-choice';
import type { MappingInput, MappingReport } from './worker-protocol';

/** A mapping source from a file's text (or the error reading it). */
export function mappingSource(input: MappingInput): MappingSource {
  const { path: file, origin, glob, text, within } = input;
  const appliesTo = within ? (traceFile: string) => insideFolders(traceFile, within) : undefined;
  if (typeof text !== 'string') {
    return { path: file, origin, glob, appliesTo, problems: [{ severity: 'error', message: text.error, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }] };
  }
  const parsed = parseMapping(text, file);
  const ownGlob = parsed.glob;
  const problems = [...parsed.problems];
  if (origin === 'workspace' && parsed.mapping && !ownGlob) {
    problems.push({ severity: 'info', file, message: 'this mapping has no "files.glob", so it reads no file by itself: name it in the otrace.mappings setting ({"glob": "path/to/this.otrace-map.json"}) or pass it with otrace --map', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
  }
  return { path: file, mapping: parsed.mapping, problems, origin, glob: origin === 'setting' ? glob : ownGlob, appliesTo };
}

/** What the host needs of a source: where it is, how it applies, whether it is usable, its problems. */
export function mappingReport(source: MappingSource): MappingReport {
  return { path: source.path, origin: source.origin, glob: source.glob, usable: source.mapping !== undefined, problems: source.problems };
}
