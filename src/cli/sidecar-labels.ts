/**
 * The labels sidecar of a trace as the CLI reads it (`<trace>.labels.jsonl`, next to the trace):
 * read, attached to the trace's events, its problems printed as FILE:LINE:COLUMN lines on stderr
 * (a bad line or a label that found no event is reported, never dropped silently).
 */
import * as fs from 'node:fs';
import { attachLabels, type Attachment } from '../analysis/labels/attach';
import { readSidecar, sidecarPath } from '../analysis/labels/sidecar';
import { traceTargets } from '../analysis/labels/targets';
import { formatPosition, type LoadedTrace } from '../trace/model';
import { MAX_MESSAGE, safe, safePath, writeLines } from './common';

/** A trace's sidecar read and attached, with its path; undefined when the trace has none. */
export interface SidecarOfTrace extends Attachment {
  path: string;
  /** Lines of the sidecar that are no label (each is a problem). */
  invalid: number;
}

/**
 * Reads the sidecar of the trace at `file` and attaches its labels to `loaded`'s events; prints
 * its problems to `err`. Undefined when there is no sidecar; a sidecar that cannot be read is an
 * error line on `err` and counts as none.
 */
export function sidecarOf(file: string, loaded: LoadedTrace, err: { write(text: string): unknown } = process.stderr): SidecarOfTrace | undefined {
  const at = sidecarPath(file);
  // most traces have none: asked first, it costs no thrown error per trace over a corpus (issue 30)
  if (!fs.existsSync(at)) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(at, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    writeLines(err, [`${safePath(at)}: error: cannot read the labels: ${safe((e as Error).message, MAX_MESSAGE)}`]);
    return undefined;
  }
  const read = readSidecar(text);
  const attachment = attachLabels(read.labels, traceTargets(loaded));
  const problems = [...read.problems, ...attachment.problems].sort((a, b) => a.range.start.line - b.range.start.line);
  if (problems.length) writeLines(err, problems.map((p) => `${safePath(at)}:${formatPosition(p.range.start)}: ${p.severity}: ${safe(p.message, MAX_MESSAGE)}`));
  return { ...attachment, problems, path: at, invalid: read.problems.length };
}
