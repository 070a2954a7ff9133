/**
 * The tab title of a graph panel. The file name is untrusted (a trace can be saved under any name):
 * its control and bidi characters are shown as `⟨U+202E⟩` so a right-to-left override cannot
 * reorder the tab's text, and a name of thousands of characters is cut.
 */
import * as path from 'node:path';
import { plainLabel, plainText, type PlainText } from '../../shared/untrusted-text';

/** Longest file name shown whole in a tab title (characters); longer ones end in `…`. */
export const TITLE_NAME_CHARS = 120;

/**
 * `Graph: <file name>` for the trace at `fsPath`, with ` (locked)` for a panel kept on its trace and
 * ` (deleted)` when the file is gone from disk (VS Code's word on an editor's tab).
 */
export function graphPanelTitle(fsPath: string, locked = false, gone = false): PlainText {
  const name = plainLabel(path.basename(fsPath), TITLE_NAME_CHARS);
  const title = locked ? plainText`Graph: ${name} (locked)` : plainText`Graph: ${name}`;
  return gone ? plainText`${title} (deleted)` : title;
}
