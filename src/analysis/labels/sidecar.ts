/**
 * The labels sidecar: what a person says about events of a trace, kept in `<trace>.labels.jsonl`
 * next to the trace (never in it), one JSON record per label. The record's schema (zod, and the
 * JSON Schema generated from it: media/otrace-labels.schema.json), reading a sidecar's text into
 * records with positioned problems (a bad line is a problem, the other lines still count), and
 * writing one record as a line. Pure: no `vscode`, no file system.
 */
import * as z from 'zod';
import type { Problem } from '../../trace/model';
import { LABEL_KINDS } from '../../shared/label-kinds';

export { LABEL_KINDS, LABEL_TITLES, SIDECAR_SUFFIX, isSidecar, sidecarPath, type LabelKind } from '../../shared/label-kinds';

const FindingRefSchema = z
  .object({
    kind: z.string().min(1).describe("The finding's kind: stop, loop, blame, best_stop, verification."),
    mode: z.string().optional().describe("A stop finding's verdict (ok, premature, delayed, no_stop)."),
    inline: z.string().optional().describe("The finding's short text as otrace showed it when the label was given."),
  })
  .describe("The otrace finding the label accepts or rejects.");

/** One label of the sidecar (one line). */
export const LabelRecordSchema = z
  .object({
    event: z.string().min(1).describe("The labelled event's id in the trace (re-attached by it first)."),
    position: z
      .object({
        file: z.string().describe("The file the event's record is in, relative to the trace's folder ('' = the trace file itself)."),
        line: z.number().int().min(1).describe('1-based line of the record when the label was given.'),
        offset: z.number().int().min(0).optional().describe('Byte offset of the record in its file, when known.'),
      })
      .describe("Where the event's record was when the label was given."),
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{8}$/)
      .describe("The event's fingerprint (type, agent, time, tool, receiver; then its content): finds the event again when ids shift (src/analysis/labels/fingerprint.ts)."),
    label: z.enum(LABEL_KINDS).describe('What the person says about the event.'),
    note: z.string().optional().describe('Free text (the whole label, for `note`).'),
    finding: FindingRefSchema.optional(),
    author: z.string().describe('Who gave the label (git config user.name, or the OS user).'),
    time: z.iso.datetime({ offset: true }).describe('When the label was given (ISO 8601).'),
  })
  .describe('A label a person gave an event of a trace (otrace labels sidecar, one JSON object per line).');

/** One label record as stored. */
export type LabelRecord = z.infer<typeof LabelRecordSchema>;

/** A label read from a sidecar, with its 0-based line there. */
export interface SidecarLabel {
  record: LabelRecord;
  /** 0-based line of the record in the sidecar. */
  line: number;
}

/** What a sidecar's text holds: its valid labels, and a positioned problem per line that is not one. */
export interface SidecarRead {
  labels: SidecarLabel[];
  problems: Problem[];
}

/**
 * Reads a sidecar's text: one label per non-blank line. A line that is not JSON, or not a label,
 * is an error problem at that line (the column of the field at fault, when it can be found); it is
 * skipped and the rest still count. Never throws.
 */
export function readSidecar(text: string): SidecarRead {
  const labels: SidecarLabel[] = [];
  const problems: Problem[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, line) => {
    const body = raw.replace(/\r$/, '');
    if (!body.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      problems.push(problemAt(line, 0, body.length, `not a JSON label record: ${(err as Error).message}`));
      return;
    }
    const parsed = LabelRecordSchema.safeParse(value);
    if (parsed.success) {
      if ((parsed.data.label === 'accept_finding' || parsed.data.label === 'reject_finding') && !parsed.data.finding) {
        problems.push(problemAt(line, 0, body.length, `a ${parsed.data.label} label names the finding it judges in "finding"`));
        return;
      }
      labels.push({ record: parsed.data, line });
      return;
    }
    for (const issue of parsed.error.issues.slice(0, 3)) {
      const key = issue.path.length ? String(issue.path[issue.path.length - 1]) : undefined;
      const at = key === undefined ? -1 : body.indexOf(JSON.stringify(key));
      const where = issue.path.length ? `"${issue.path.join('.')}"` : 'the record';
      problems.push(problemAt(line, Math.max(0, at), at >= 0 ? at + JSON.stringify(key).length : body.length, `label record: ${where}: ${issue.message}`));
    }
  });
  return { labels, problems };
}

/** One label as a sidecar line (JSON, no line break inside; the caller adds `\n`). */
export function labelLine(record: LabelRecord): string {
  return JSON.stringify(LabelRecordSchema.parse(record));
}

function problemAt(line: number, start: number, end: number, message: string): Problem {
  return { severity: 'error', message, range: { start: { line, character: start }, end: { line, character: end } } };
}

/** The JSON Schema (draft 2020-12) of one sidecar line, generated from {@link LabelRecordSchema}; media/otrace-labels.schema.json. */
export function labelsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(LabelRecordSchema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    $id: 'https://otrace.dev/schema/otrace-labels.schema.json',
    title: 'otrace label (one line of <trace>.labels.jsonl)',
    ...schema,
  };
}
