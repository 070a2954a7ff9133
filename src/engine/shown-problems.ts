/**
 * Reading problems as the views show them (the Problems panel, the graph's header). One problem reads
 * differently in a file being written: the last line of a file seen growing (src/engine/structure-growth.ts
 * `isFollowed`) that has no line break and does not parse is most often a record its writer has not
 * ended yet, read when it ends (src/trace/growing-file.ts). Shown as an error on every append, it
 * came and went in the Problems panel of a live trace. It is information there, and says that a
 * writer that stopped left it cut off; the same line in a file not seen growing stays an error.
 * Likewise what a running writer leaves and a reader marks so (`Problem.whileWritten`): an empty file
 * (a writer that starts its file again), tool calls with no result yet; read so the first time, or
 * from a document's text, each stays the error or warning it is.
 * The trace's own problems are never changed (a followed read equals a whole read). Pure: no `vscode`.
 */
import type { Problem } from '../trace/model';

/** The words of an unterminated last line in a file seen growing. */
export const BEING_WRITTEN = 'last line has no line break yet: the file is being written, and the line is read when it ends (if the writer stopped, the line is cut off and skipped)';

/**
 * `p` as the views show it: an unterminated last line ({@link Problem.unterminated}) of a file seen
 * growing (`followed`) as information saying so ({@link BEING_WRITTEN}), and a problem that says what it
 * means in a file being written ({@link Problem.whileWritten}: an empty file, calls with no result yet) as that
 * information; any other problem as it is
 * (the same object).
 */
export function shownProblem(p: Problem, followed: boolean): Problem {
  if (!followed) return p;
  if (p.unterminated) return { ...p, severity: 'info', message: BEING_WRITTEN };
  if (p.whileWritten !== undefined) return { ...p, severity: 'info', message: p.whileWritten };
  return p;
}
