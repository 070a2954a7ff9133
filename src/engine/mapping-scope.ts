/**
 * Where a workspace's mapping files reach: a mapping file found in the workspace, or named by the
 * workspace's `otrace.mappings`, must itself lie inside the workspace and reads only trace files
 * inside it, with symbolic links resolved before deciding (a link in the workspace to /etc/passwd
 * is outside). Node's file system only (no `vscode`): the host and the engine's worker both ask.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The real path of the absolute path `file` (every symbolic link resolved). A path that does not
 * exist (yet) resolves through its nearest existing folder: that folder's real path and the rest
 * (which holds no link, as it does not exist). Undefined when nothing of it resolves.
 */
export function realPathOf(file: string): string | undefined {
  let rest = '';
  // An absolute path is resolved as the file system does (`link/..` is the parent of the link's
  // target), not normalized first: what is checked is what a read of `file` opens.
  for (let at = path.isAbsolute(file) ? file : path.resolve(file); ; ) {
    try {
      return path.join(fs.realpathSync.native(at), rest);
    } catch {
      const up = path.dirname(at);
      if (up === at) return undefined;
      rest = path.join(path.basename(at), rest);
      at = up;
    }
  }
}

/** True when the absolute path `file` is `folder` or lies inside it (plain path arithmetic, no file system). */
export function isInside(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * True when `file`, symbolic links resolved, lies inside one of `folders` (real paths, as
 * {@link realPathOf} gives them). A relative `file`, or one that cannot be resolved, is inside none.
 */
export function insideFolders(file: string, folders: readonly string[]): boolean {
  if (!folders.length || !path.isAbsolute(file)) return false;
  const real = realPathOf(file);
  return real !== undefined && folders.some((f) => isInside(real, f));
}
