/** {@link FileAccess} on the local disk, for the CLI and the extension host. */
import * as fs from 'node:fs';
import type { FileAccess } from './formats';
import { decodeText } from './text-encoding';

/** Reads files (decoded as text-encoding.ts finds: UTF-8, UTF-16, UTF-32) and lists directories with node:fs; missing paths give undefined, never throw. */
export const nodeFileAccess: FileAccess = {
  readText(path) {
    try {
      return decodeText(fs.readFileSync(path)).text;
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
