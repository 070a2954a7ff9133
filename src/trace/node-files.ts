/** {@link FileAccess} on the local disk, for the CLI and the extension host. */
import * as fs from 'node:fs';
import type { FileAccess } from './formats';

/** Reads files and lists directories with node:fs; missing paths give undefined, never throw. */
export const nodeFileAccess: FileAccess = {
  readText(path) {
    try {
      return fs.readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  list(dir) {
    try {
      return fs.readdirSync(dir);
    } catch {
      return undefined;
    }
  },
};
