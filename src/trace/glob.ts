/**
 * File-name globs of mapping files (`files.glob`, the `otrace.mappings` setting): `*`, `?`, `**`.
 * Its own module, with no imports, so the extension host can match globs without the readers.
 */

/**
 * A file-name glob as a RegExp over the path's last segments: `*.log.jsonl` matches the file name,
 * `runs/*.jsonl` a file in any `runs` folder, `**\/x.jsonl` x.jsonl in any folder.
 */
export function globRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0001').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/\\\\]*').replace(/\?/g, '[^/\\\\]').replace(/\u0001/g, '(?:.*[/\\\\])?').replace(/\u0000/g, '.*');
  return new RegExp(`(^|[/\\\\])${re}$`);
}

/** True when `fileName` (a path) matches `glob` (see {@link globRegExp} for the rules). */
export function globMatches(glob: string, fileName: string): boolean {
  return globRegExp(glob).test(fileName);
}
