/**
 * The words of people's labels that every layer shares (the CLI, the engine, the host, the graph):
 * the kinds of label, their titles, and the name of a trace's labels sidecar. The record's schema
 * (zod) is src/analysis/labels/sidecar.ts, run in the engine and the CLI only. Pure.
 */

/** The suffix that makes a trace's sidecar name: `run.jsonl` → `run.jsonl.labels.jsonl`. */
export const SIDECAR_SUFFIX = '.labels.jsonl';

/** The sidecar of a trace file: its path with {@link SIDECAR_SUFFIX} appended. */
export function sidecarPath(tracePath: string): string {
  return tracePath + SIDECAR_SUFFIX;
}

/** True when a file name is a labels sidecar (not a trace: corpus walks and trace detection skip it). */
export function isSidecar(name: string): boolean {
  return name.toLowerCase().endsWith(SIDECAR_SUFFIX);
}

/**
 * The kinds of label a person can give an event. The first four judge the orchestration (the
 * survey's stop decision O5 and blame); `note` is free text; `accept_finding` / `reject_finding`
 * judge one of otrace's own findings on the event (the record names it in `finding`).
 */
export const LABEL_KINDS = ['should_have_stopped', 'stopped_too_early', 'decisive_error', 'good_step', 'note', 'accept_finding', 'reject_finding'] as const;
export type LabelKind = (typeof LABEL_KINDS)[number];

/** The words the editor and the graph show for each kind. */
export const LABEL_TITLES: Record<LabelKind, string> = {
  should_have_stopped: 'Should Have Stopped Here',
  stopped_too_early: 'Stopped Too Early',
  decisive_error: 'Decisive Error',
  good_step: 'Good Step',
  note: 'Note',
  accept_finding: 'Accept Finding',
  reject_finding: 'Reject Finding',
};

/** The otrace finding a label accepts or rejects, as otrace showed it. */
export interface FindingRef {
  kind: string;
  mode?: string;
  inline?: string;
}

/** What a person gives when labelling an event (the engine adds the event's id, place and fingerprint). */
export interface NewLabel {
  label: LabelKind;
  note?: string;
  finding?: FindingRef;
}
