/**
 * Which mapping file reads a trace (docs/mapping.md, "Which mapping applies"): a mapping named for
 * the file in settings (`otrace.mappings`: glob -> mapping file; `otrace --map FILE` in the CLI), then
 * workspace `*.otrace-map.json` files whose `files.glob` and `files.required` match, then the
 * built-in detectors. Pure: no `vscode`, no I/O (the editor and the CLI read the mapping files).
 */
import { loadTrace, type FileAccess } from './formats';
import { globMatches, mappingApplies, readWithMapping, type TraceMapping } from './mapping';
import type { LoadedTrace, Problem } from './model';
import { plainText } from '../shared/untrusted-text';

/** One mapping file as read, and how it was named. */
export interface MappingSource {
  /** Path of the mapping file (shown in messages). */
  path: string;
  /** The mapping, or undefined when errors make it unusable (see {@link problems}). */
  mapping?: TraceMapping;
  /** Its problems, positioned in the mapping file. */
  problems: Problem[];
  /**
   * `setting`: named for files matching {@link glob} (the setting's glob, which replaces the file's
   * own `files`); `workspace`: found in the workspace, applies by its own `files.glob` and
   * `files.required` (one without `files.glob` never applies by itself).
   */
  origin: 'setting' | 'workspace';
  /** The glob it is named for (setting), or its own `files.glob` (workspace; also when the mapping is unusable). */
  glob?: string;
  /**
   * When set, the mapping reads only the trace files this accepts (a workspace's mapping: files
   * inside the workspace, symbolic links resolved; src/engine/mapping-scope.ts). Asked only for a
   * file its glob matches.
   */
  appliesTo?: (fileName: string) => boolean;
}

/** The mapping chosen for a file, and the source it came from. */
export interface MappingChoice {
  source: MappingSource;
  /** True when the source is unusable: the file falls back to the built-in formats with an error. */
  broken: boolean;
}

/**
 * The mapping that reads `fileName`, by the precedence above, or undefined (built-in detectors).
 * @param text the file's text (its start is enough: the required fields are looked up in the first record).
 * @param sources settings-named sources first (in the setting's order), then workspace ones (sorted by path).
 */
export function chooseMapping(sources: readonly MappingSource[], text: string, fileName: string): MappingChoice | undefined {
  for (const s of sources) {
    if (s.origin !== 'setting' || !s.glob || !globMatches(s.glob, fileName) || (s.appliesTo && !s.appliesTo(fileName))) continue;
    return { source: s, broken: !s.mapping };
  }
  for (const s of sources) {
    if (s.origin !== 'workspace' || !s.glob || !globMatches(s.glob, fileName) || (s.appliesTo && !s.appliesTo(fileName))) continue;
    if (!s.mapping) return { source: s, broken: true };
    if (mappingApplies(s.mapping, text, fileName)) return { source: s, broken: false };
  }
  return undefined;
}

/** Where a trace-file message about a mapping goes: the first line of the trace. */
const FIRST_LINE = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };

/**
 * Reads a trace with the mapping {@link chooseMapping} picks, else with the built-in formats.
 * A chosen but unusable mapping gives one error in the trace (its own problems stay in the mapping
 * file, where the caller shows them) and the built-in formats read the file.
 * @returns the loaded trace; `mappingPath` is the mapping file that read it (undefined: built-in).
 */
export function loadWithMappings(text: string, fileName: string, sources: readonly MappingSource[], files?: FileAccess): LoadedTrace {
  const choice = chooseMapping(sources, text, fileName);
  if (!choice) return loadTrace(text, fileName, files);
  const glob = choice.source.glob ?? '';
  const named = choice.source.origin === 'setting' ? plainText`named in otrace.mappings for "${glob}"` : plainText`found in the workspace for "${glob}"`;
  if (choice.broken) {
    const loaded = loadTrace(text, fileName, files);
    const errors = choice.source.problems.filter((p) => p.severity === 'error');
    const first = errors[0]?.message ?? 'it cannot be read';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more, shown in that file)` : '';
    loaded.problems.unshift({ severity: 'error', message: plainText`the mapping ${choice.source.path} (${named}) cannot be used: ${first}${more}; read with the built-in formats instead`, range: FIRST_LINE });
    return loaded;
  }
  return { ...readWithMapping(text, fileName, choice.source.mapping!), mappingPath: choice.source.path };
}
