/**
 * Which mapping files the editor reads (docs/mapping.md, "In VS Code"), decided without `vscode` so
 * that it is unit-tested with the workspace's trust given: the `otrace.mappings` setting (user
 * values, then workspace values) and the `*.otrace-map.json` files found in the workspace.
 *
 * What a workspace supplies is untrusted: its mapping files and its values of `otrace.mappings`
 * are read only when they lie inside the workspace (symbolic links resolved), and the mappings they
 * give read only trace files inside the workspace (`within`). In a workspace that is not trusted
 * (restricted mode) they are not used at all. The user's own settings may name any file and apply
 * to any trace file. A glob that {@link globProblem} refuses is not used.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globProblem } from '../../trace/glob';
import { isInside, realPathOf } from '../../engine/mapping-scope';

/** The values of `otrace.mappings` by where they are set (from `inspect()`). */
export interface MappingSettingValues {
  /** The user's (global) value. */
  user?: unknown;
  /** The workspace's value (a workspace folder's `.vscode/settings.json`, or the `.code-workspace` file). */
  workspace?: unknown;
}

/** What the plan is made from. */
export interface MappingPlanInput {
  setting: MappingSettingValues;
  /** File system paths of the workspace folders (file scheme only). */
  folders: readonly string[];
  /** `vscode.workspace.isTrusted`. */
  trusted: boolean;
  /** The `*.otrace-map.json` files found in the workspace (file system paths). */
  found: readonly string[];
  /** The home folder (`~` in a user setting). */
  home: string;
  /** True when a path is open in an editor (it counts as existing when a relative setting value is resolved). */
  isOpen?: (file: string) => boolean;
}

/** A mapping file to read, how it is named, and where it applies. */
export interface PlannedMapping {
  file: string;
  origin: 'setting' | 'workspace';
  /** The setting's glob (setting origin only). */
  glob?: string;
  /** Real paths of the folders whose trace files it may read; undefined: any trace file (the user's setting). */
  within?: string[];
}

/** A setting entry not used, and why (shown to the user in one message). */
export interface RefusedEntry {
  glob: string;
  scope: 'user' | 'workspace';
  /** `outside`: a workspace value names a file outside the workspace; `glob`: the glob is refused (`detail` says why). */
  reason: 'outside' | 'glob';
  detail?: string;
}

/** The plan: what to read, and what was left out. */
export interface MappingPlan {
  /** In precedence order: setting entries in the setting's order, then workspace files by path. */
  read: PlannedMapping[];
  /** Found workspace mapping files that are symbolic links to a file outside the workspace (not read; shown on the link). */
  outside: string[];
  refused: RefusedEntry[];
  /** Set in restricted mode when the workspace had mapping files or values of otrace.mappings that are not used. */
  restricted?: { files: number; settings: number };
}

/** The string entries of a setting value (anything else in it is ignored, as VS Code's schema check would flag it). */
function entriesOf(value: unknown): [string, string][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string' && !!e[1].trim() && !!e[0].trim());
}

/**
 * Decides which mapping files to read. Touches the file system only to resolve paths (never a
 * path a workspace value names outside the workspace folders, not even to ask if it exists).
 */
export function planMappings(input: MappingPlanInput): MappingPlan {
  const isOpen = input.isOpen ?? (() => false);
  const exists = (p: string) => isOpen(p) || fs.existsSync(p);
  const realFolders = [...new Set(input.folders.map((f) => realPathOf(f) ?? path.resolve(f)))];
  const insideReal = (file: string) => {
    const real = realPathOf(file);
    return real !== undefined && realFolders.some((f) => isInside(real, f));
  };
  const refused: RefusedEntry[] = [];
  const named = new Map<string, PlannedMapping>();
  const relativeIn = (rel: string): string => {
    const all = input.folders.map((f) => path.join(f, rel));
    return all.find(exists) ?? all[0] ?? path.resolve(rel);
  };
  for (const [glob, raw] of entriesOf(input.setting.user)) {
    const value = fromFileUri(raw);
    const bad = globProblem(glob);
    if (bad) {
      refused.push({ glob, scope: 'user', reason: 'glob', detail: bad });
      continue;
    }
    const expanded = value === '~' ? input.home : value.startsWith('~/') ? path.join(input.home, value.slice(2)) : value;
    named.set(glob, { file: path.isAbsolute(expanded) ? expanded : relativeIn(expanded), origin: 'setting', glob });
  }
  const workspaceEntries = entriesOf(input.setting.workspace);
  if (input.trusted) {
    for (const [glob, raw] of workspaceEntries) {
      const value = fromFileUri(raw);
      const bad = globProblem(glob);
      if (bad) {
        refused.push({ glob, scope: 'workspace', reason: 'glob', detail: bad });
        continue;
      }
      // No `~` (the home folder is outside), and a path outside the folders is refused before the
      // file system is asked anything about it.
      const home = value === '~' || value.startsWith('~/') || value.startsWith('~\\');
      const candidates = home ? [] : path.isAbsolute(value) ? [path.normalize(value)] : input.folders.map((f) => path.join(f, value));
      const lexical = candidates.filter((c) => input.folders.some((f) => isInside(c, path.resolve(f))));
      const file = lexical.find(exists) ?? lexical[0];
      if (!file || !insideReal(file)) {
        refused.push({ glob, scope: 'workspace', reason: 'outside' });
        continue;
      }
      named.set(glob, { file, origin: 'setting', glob, within: realFolders });
    }
  }
  const read: PlannedMapping[] = [...named.values()];
  const outside: string[] = [];
  if (input.trusted) {
    for (const file of [...input.found].sort()) {
      if (insideReal(file)) read.push({ file, origin: 'workspace', within: realFolders });
      else outside.push(file);
    }
  }
  const restricted = !input.trusted && (input.found.length || workspaceEntries.length) ? { files: input.found.length, settings: workspaceEntries.length } : undefined;
  return { read, outside, refused, restricted };
}

/** A `file:` URI as its file system path (a setting may hold one); any other value as it is. */
function fromFileUri(value: string): string {
  if (!/^file:/i.test(value)) return value;
  try {
    return fileURLToPath(value);
  } catch {
    return value;
  }
}
