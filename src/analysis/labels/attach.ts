/**
 * Re-attaching a sidecar's labels to the events of a trace as it is now (grown, re-exported, edited).
 * A label goes back to the event with its id when that event's fingerprint (or, the header having
 * changed, its content) still matches; else to the one event whose fingerprint matches (ids
 * shifted), the nearest to the label's old line when several do; else it is left unattached with a
 * warning at its line of the sidecar: never dropped, never guessed. Pure; O(labels) when ids hold,
 * one pass over the events when one does not.
 */
import type { Problem } from '../../trace/model';
import type { TraceEvent } from '../../trace/schema';
import { contentHash, metaHash } from './fingerprint';
import type { SidecarLabel } from './sidecar';

/** The events labels attach to, read one at a time. */
export interface LabelTargets {
  /** Events of the trace, index for index with `loaded.trace.events`. */
  events: readonly Pick<TraceEvent, 'id' | 'type' | 'agent' | 't' | 'tool' | 'to'>[];
  /** The content (or content_ref) of event `i`, or undefined. */
  content(i: number): string | undefined;
  /** The 0-based line of event `i`'s record in its file, or undefined. */
  line(i: number): number | undefined;
}

/** A label attached to an event of the trace. */
export interface AttachedLabel extends SidecarLabel {
  /** Index of the event in `loaded.trace.events`. */
  index: number;
  /** How it was found: by its event id, or by its fingerprint (ids shifted). */
  by: 'id' | 'fingerprint';
}

/** Labels attached, and a warning per label that found no event (at its line of the sidecar). */
export interface Attachment {
  attached: AttachedLabel[];
  /** Labels that found no event: kept (the sidecar is unchanged), shown as warnings. */
  unattached: SidecarLabel[];
  problems: Problem[];
}

/** Attaches each label to its event now; see the module's comment for the order of the tries. */
export function attachLabels(labels: readonly SidecarLabel[], targets: LabelTargets): Attachment {
  const out: Attachment = { attached: [], unattached: [], problems: [] };
  if (labels.length === 0) return out;
  const byId = new Map<string, number[]>();
  targets.events.forEach((e, i) => {
    const list = byId.get(e.id);
    if (list) list.push(i);
    else byId.set(e.id, [i]);
  });
  let metas: string[] | undefined; // every event's header hash, made once when some id fails
  const contents = new Map<number, string>();
  const contentOf = (i: number) => {
    let h = contents.get(i);
    if (h === undefined) contents.set(i, (h = contentHash(targets.content(i))));
    return h;
  };
  for (const label of labels) {
    const [meta, content] = label.record.fingerprint.split('-');
    const same = (byId.get(label.record.event) ?? []).filter((i) => metaHash(targets.events[i]) === meta && contentOf(i) === content);
    const sameContent = same.length ? same : (byId.get(label.record.event) ?? []).filter((i) => contentOf(i) === content);
    const byIdAt = sameContent.length ? nearest(sameContent, label, targets) : -1;
    if (byIdAt >= 0) {
      out.attached.push({ ...label, index: byIdAt, by: 'id' });
      continue;
    }
    metas ??= targets.events.map((e) => metaHash(e));
    const matches: number[] = [];
    metas.forEach((m, i) => {
      if (m === meta && contentOf(i) === content) matches.push(i);
    });
    const at = matches.length ? nearest(matches, label, targets) : -1;
    if (at >= 0) {
      out.attached.push({ ...label, index: at, by: 'fingerprint' });
      continue;
    }
    out.unattached.push(label);
    const why = byId.has(label.record.event) ? `event ${label.record.event} now holds a different record, and no event has the label's fingerprint` : `no event has id ${label.record.event} or the label's fingerprint`;
    out.problems.push({
      severity: 'warning',
      message: `label "${label.record.label}" (line ${label.record.position.line} of ${label.record.position.file || 'the trace'} when given) is not attached: ${why}; it is kept here`,
      range: { start: { line: label.line, character: 0 }, end: { line: label.line, character: 1 } },
    });
  }
  return out;
}

/** Of several matching events, the one whose line is nearest the label's old line (the first on a tie); -1 when none is unique. */
function nearest(candidates: number[], label: SidecarLabel, targets: LabelTargets): number {
  if (candidates.length === 1) return candidates[0];
  const want = label.record.position.line - 1;
  let best = -1;
  let bestDistance = Infinity;
  let tie = false;
  for (const i of candidates) {
    const d = Math.abs((targets.line(i) ?? Infinity) - want);
    if (d < bestDistance) {
      best = i;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) tie = true;
  }
  return tie ? -1 : best;
}
