/**
 * People's labels on a session's events, where the snapshot lives: the fields of a new label's
 * record for an event ({@link labelTarget}: its id, place and fingerprint, and the findings on it a
 * person may accept or reject), and a sidecar's text read and attached to the snapshot's events
 * ({@link sessionLabels}). The host reads and writes the sidecar file; the trace is never written.
 * Pure Node (reads set-aside content from disk), no `vscode`.
 */
import { attachLabels } from '../analysis/labels/attach';
import { labelLine, readSidecar, type LabelRecord } from '../analysis/labels/sidecar';
import type { NewLabel } from '../shared/label-kinds';
import { labelTargetOf, traceTargets } from '../analysis/labels/targets';
import type { Position, Problem } from '../trace/model';
import { contentOf } from './long-content';
import { findingsOfEvent, type TraceSnapshot } from './snapshot';

/** What a new label on an event records of it, and the findings on the event (for Accept / Reject Finding). */
export interface LabelTarget extends Pick<LabelRecord, 'event' | 'position' | 'fingerprint'> {
  /** The event's type and agent (the quick pick's title). */
  type: string;
  agent: string;
  findings: { kind: string; mode?: string; inline: string }[];
}

/** One label attached to an event of the session, where its event starts. */
export interface SessionLabel {
  index: number;
  /** The file the event is in (`''`: the trace file) and where its record starts (0-based). */
  file: string;
  at: Position;
  label: LabelRecord['label'];
  note?: string;
  finding?: LabelRecord['finding'];
  author: string;
  time: string;
  by: 'id' | 'fingerprint';
}

/** A sidecar's labels on a session: the attached ones and the sidecar's problems (bad lines, labels that found no event), in sidecar coordinates. */
export interface SessionLabels {
  labels: SessionLabel[];
  problems: Problem[];
}

/** The record fields of a new label on event `index`, or undefined when it is no event. */
export function labelTarget(s: TraceSnapshot, index: number): LabelTarget | undefined {
  const target = labelTargetOf(s.loaded, index, contentOf(s, index));
  if (!target) return undefined;
  const e = s.loaded.trace.events[index];
  const findings = findingsOfEvent(s, index).map((k) => {
    const f = s.findings[k];
    return { kind: f.kind, ...(f.mode ? { mode: f.mode } : {}), inline: f.inline };
  });
  return { ...target, type: e.type, agent: e.agent, findings };
}

/**
 * The sidecar line of a new label on event `index` (validated JSON, no line break), or undefined when
 * it is no event or the label is not valid (an accept or reject without its finding).
 * @param who the author's name and the time (ISO 8601), as the host knows them
 */
export function newLabelLine(s: TraceSnapshot, index: number, label: NewLabel, who: { author: string; time: string }): string | undefined {
  const target = labelTargetOf(s.loaded, index, contentOf(s, index));
  if (!target) return undefined;
  if ((label.label === 'accept_finding' || label.label === 'reject_finding') && !label.finding) return undefined;
  try {
    return labelLine({ ...target, label: label.label, ...(label.note ? { note: label.note } : {}), ...(label.finding ? { finding: label.finding } : {}), author: who.author, time: who.time });
  } catch {
    return undefined; // not a valid record (zod said why; the host's arguments are checked before)
  }
}

/** Reads a sidecar's text and attaches its labels to the snapshot's events. Never throws on the text. */
export function sessionLabels(s: TraceSnapshot, sidecarText: string): SessionLabels {
  const read = readSidecar(sidecarText);
  const attachment = attachLabels(read.labels, traceTargets(s.loaded, (i) => contentOf(s, i)));
  const labels = attachment.attached.map<SessionLabel>((a) => {
    const o = s.loaded.eventOrigins.get(a.index);
    const r = a.record;
    return {
      index: a.index,
      file: o?.file ?? '',
      at: o?.range.start ?? { line: 0, character: 0 },
      label: r.label,
      ...(r.note !== undefined ? { note: r.note } : {}),
      ...(r.finding ? { finding: r.finding } : {}),
      author: r.author,
      time: r.time,
      by: a.by,
    };
  });
  return { labels, problems: [...read.problems, ...attachment.problems].sort((a, b) => a.range.start.line - b.range.start.line) };
}
