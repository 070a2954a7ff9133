/**
 * Importer for MAST / MAD records ("Why Do Multi-Agent LLM Systems Fail?", Cemri et al. 2025,
 * arXiv 2503.13657; dataset HF mcemri/MAD, CC-BY-4.0). Shapes, told apart by content:
 * - MAD record `{mas_name, llm_name, benchmark_name, trace_id, trace: {key, index, trajectory},
 *   mast_annotation: {'1.1': 0|1, ...}}` (MAD_full_dataset.json; a file holding a JSON array of them
 *   loads its first record, with a note). The human-labelled variant has `trace` as a string and
 *   `annotations: [{'failure mode', annotator_1..3}]`.
 * - AG2 early-annotation record `{instance_id, problem_statement[], other_data, trajectory[{content,
 *   role, name}], note{text[], options{<early category>: yes|no}}}`.
 * The trajectory is read by its content:
 * - a ChatDev log (`[YYYY-DD-MM hh:mm:ss INFO] ...` entries): records = the log entries, 0-based, in
 *   order (noise entries count too); ids `L{n}`; each event's range is the entry's text inside the
 *   JSON string in the file (mapped through escapes). t = seconds since the first entry.
 *     `System: **[chatting]**` -> `delegate` ChatChain -> the phase's user role (phase, assistant_role,
 *     user_role, chat_turn_limit); `X: **[Start Chat]**` and `X: **A<->B on : Phase, turn N**` ->
 *     `message` X -> the other role (content without the echoed system prompt; `tokens` from the
 *     `**[OpenAI_Usage_Info Receive]**` blocks, in order, total_tokens each); a message containing
 *     `<INFO>` -> also `L{n}.stop` (task_complete, scope 'phase', decided_by X);
 *     `**[Seminar Conclusion]**` -> `return` (last speaker -> ChatChain) and, when the phase reached its
 *     chat_turn_limit without an `<INFO>`, `L{n}.stop` (max_turns, scope 'phase', decided_by
 *     'chat_turn_limit'); a Reflection phase nests inside the phase it reflects on;
 *     `**[Execute Detail]**` -> `orchestrator_decision` (ChatChain); `**[Update Codes]**` -> `tool_call`
 *     update_codes by the last speaker; `**[Test Reports]**` -> `tool_result` run_tests (ChatChain);
 *     `**[Test Info]**` -> `message` from the test role; `**[Post Info]**` -> `stop` (task_complete,
 *     scope 'run', ChatChain). Preprocessing / Software Info / RolePlaying / HTTP / flask lines give no event.
 * - AG2 turns (early records, or a trajectory string that is JSON with `trajectory[]`): ids `t{i}`,
 *   record i; `message` per turn (agent = `name`); fenced code blocks followed by the executor's reply
 *   -> `t{i}.call{k}` `tool_call` + that reply as `tool_result`; a turn ending in TERMINATE, or (MathChat,
 *   agent `mathproxyagent` present) a `\boxed{}` answer without code -> `t{i}.stop` task_complete.
 * - Magentic-One console logs (`---------- Speaker ----------` blocks): `message` per block, ids `b{i}`.
 * - anything else: one `message` holding the whole log, with a warning that it was not segmented.
 * Edges: consecutive events `causal` (tool_call `tool_dependency`, tool_result/return `return`).
 *
 * TRACE FIELDS: `metrics.task_success` = 1 / 0 (`outcome_source` says so) from an AG2 record's `other_data.correct` (top-level, or in
 * the JSON of a trajectory string) when it is a boolean: the run's judged result, its outcome.
 * METADATA (trace.metadata; ground truth is for scoring only, never analysis input):
 * - `source`: 'mast'; `record`: 'MAD' | 'MAD-human' | 'AG2-early'; `log_format`: 'chatdev' |
 *   'ag2-turns' | 'magentic-console' | 'unsegmented'; `mas_name`, `llm_name`, `benchmark_name`,
 *   `mad_trace_id`, `key`, `index` as in the record; `task`: the task text (ChatDev task_prompt /
 *   AG2 problem_statement); `chatdev`: {project_name, post_info {name: number}, phases [...]};
 *   `time`: 'step-index' when the log has no clock (AG2 turns, console blocks: t counts them).
 * - `ground_truth`: {
 *     mast: { '1.1': 0|1|null, ... } — the record's labels verbatim (MAD_full: LLM-as-judge, trace-level),
 *     failure_modes: string[] — codes labelled 1, sorted, e.g. ['1.3', '1.5', '3.1'],
 *     failure_mode_names: { code: name } for those codes (names in {@link MAST_FAILURE_MODES}),
 *     label_source: string, level: 'trace' (MAST labels have no step location),
 *     annotations?: the human-labelled variant's annotations verbatim (mast = majority vote by name),
 *     early_options?: { <early category>: boolean } and early_note?: string (AG2 early records),
 *     early_mapped?: { code: boolean } for early categories that are a rename of a final code,
 *     other_data?: the AG2 record's other_data verbatim (correct, answer, given, ...) }
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Origin, type Range } from '../model';
import type { EdgeType, StopReason, TraceEvent } from '../schema';
import { ImportBuilder, baseName, codeBlocks } from './json-import';
import { isComplete, items, mapStringOffsets, nodeRange, parseJsonDocument, property, stringOf, valueOf, type JsonDocument } from '../json-positions';
import { ownField, setOwnField } from '../counts';

export const MAST_FORMAT = 'mast';

/** The 14 MAST failure modes (final taxonomy, arXiv 2503.13657). */
export const MAST_FAILURE_MODES: Readonly<Record<string, string>> = {
  '1.1': 'Disobey Task Specification',
  '1.2': 'Disobey Role Specification',
  '1.3': 'Step Repetition',
  '1.4': 'Loss of Conversation History',
  '1.5': 'Unaware of Termination Conditions',
  '2.1': 'Conversation Reset',
  '2.2': 'Fail to Ask for Clarification',
  '2.3': 'Task Derailment',
  '2.4': 'Information Withholding',
  '2.5': "Ignored Other Agent's Input",
  '2.6': 'Reasoning-Action Mismatch',
  '3.1': 'Premature Termination',
  '3.2': 'No or Incomplete Verification',
  '3.3': 'Incorrect Verification',
};

/** Failure-mode names across taxonomy rounds (canonical lowercase words) -> final code. Renames only. */
const NAME_TO_CODE: Readonly<Record<string, string>> = {
  'disobey task specification': '1.1',
  'poor task constraint compliance': '1.1',
  'poor adherence to specified constraints': '1.1',
  'disobey role specification': '1.2',
  'step repetition': '1.3',
  'loss of conversation history': '1.4',
  'unaware of termination conditions': '1.5',
  'unaware of stopping conditions': '1.5',
  'conversation reset': '2.1',
  'trajectory restart': '2.1',
  'fail to ask for clarification': '2.2',
  'fail to elicit clarification': '2.2',
  'task derailment': '2.3',
  'derailment from task': '2.3',
  'derailing from task objectives': '2.3',
  'information withholding': '2.4',
  'information witholding': '2.4',
  'withholding relevant information': '2.4',
  'ignored other agents input': '2.5',
  'ignoring suggestions from agents': '2.5',
  'ignoring good suggestions from other agent': '2.5',
  'reasoning action mismatch': '2.6',
  'inconsistency between reasoning and action': '2.6',
  'misalignment between internal thoughts and response message': '2.6',
  'premature termination': '3.1',
  'no or incomplete verification': '3.2',
  'lack of result verification': '3.2',
  'no attempt to verify outcome': '3.2',
  'incorrect verification': '3.3',
  'lack of critical verification': '3.3',
  'evaluator agent fails to be critical': '3.3',
};

/** A failure-mode label as canonical words: leading number dropped, lowercase, punctuation removed. */
function canonicalName(label: string): string {
  const first = label.trim().split('\n', 1)[0];
  return first.replace(/^\s*\d+(\.\d+)*\s*/, '').toLowerCase().replace(/[^a-z0-9\s]/g, ' ').replace(/\s+/g, ' ').trim();
}

const ORCHESTRATOR = 'ChatChain';
const CHATDEV_HEADER = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[,.]\d+)? ([A-Z]+)\] /gm;

/** Where the current record's pieces are in the file. */
interface Ctx {
  doc: JsonDocument;
  b: ImportBuilder;
  metadata: Record<string, unknown>;
  /** The other_data of an AG2 record held as JSON inside the trajectory string (MAD human-labelled), when it has one. */
  innerOtherData?: unknown;
}

/** Reads a MAST / MAD record. Never throws: problems are returned with positions. */
export function readMast(text: string, fileName: string): LoadedTrace {
  const doc = parseJsonDocument(text);
  const b = new ImportBuilder();
  b.problems.push(...doc.problems);
  const metadata: Record<string, unknown> = { source: 'mast' };
  const ctx: Ctx = { doc, b, metadata };
  const header: { trace_id?: string; task_id?: string; system?: string; costs?: Record<string, number> } = {};
  let record = doc.root;
  if (record?.type === 'array') {
    const all = items(record);
    record = all.find((n) => n.type === 'object');
    if (all.length > 1) b.problem('info', `the file holds ${all.length} MAST records; showing the first one`, nodeRange(doc, doc.root!));
  }
  if (!record || record.type !== 'object') {
    b.problem('error', 'a MAST record must be a JSON object', record ? nodeRange(doc, record) : { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } });
    return b.finish(MAST_FORMAT, { metadata });
  }
  const str = (key: string): string | undefined => stringOf(property(record, key));
  const traceNode = property(record, 'trace');
  const trajectoryNode = traceNode?.type === 'object' ? property(traceNode, 'trajectory') : traceNode ?? property(record, 'trajectory');

  if (property(record, 'mas_name') || traceNode) {
    metadata.record = property(record, 'annotations') ? 'MAD-human' : 'MAD';
    for (const key of ['mas_name', 'llm_name', 'benchmark_name', 'round']) if (str(key) !== undefined) metadata[key] = str(key);
    const id = valueOf(property(record, 'trace_id'));
    if (id !== undefined) metadata.mad_trace_id = id;
    if (traceNode?.type === 'object') {
      for (const key of ['key', 'index']) {
        const v = valueOf(property(traceNode, key));
        if (v !== undefined) metadata[key] = v;
      }
    }
    header.system = str('mas_name');
    header.trace_id = `mast/${[str('mas_name'), str('benchmark_name'), id ?? baseName(fileName)].filter((x) => x !== undefined).join('/')}`;
  } else {
    metadata.record = 'AG2-early';
    header.system = 'AG2';
    const instance = str('instance_id');
    header.trace_id = `mast/AG2/${instance ?? baseName(fileName)}`;
    header.task_id = instance;
    const problem = valueOf(property(record, 'problem_statement'));
    if (problem !== undefined) metadata.task = Array.isArray(problem) ? problem.join('\n') : problem;
  }

  if (!trajectoryNode) {
    b.problem('error', 'the record has no trajectory ("trace.trajectory" or "trajectory")', nodeRange(doc, record));
  } else if (trajectoryNode.type === 'array') {
    importTurns(ctx, items(trajectoryNode).map((n) => ({ node: n, range: nodeRange(doc, n), complete: isComplete(doc, n) })), 'trajectory');
  } else if (trajectoryNode.type === 'string') {
    importLog(ctx, trajectoryNode, header);
  } else {
    b.problem('error', 'the trajectory must be a string (raw log) or an array of turns', nodeRange(doc, trajectoryNode));
  }

  const groundTruth = readLabels(ctx, record);
  if (Object.keys(groundTruth).length > 0) metadata.ground_truth = groundTruth;
  // The run's judged result (an AG2 record's other_data.correct, at the top or inside the trajectory's
  // JSON) is what a user of the log knows, as Who&When's is_correct: the outcome the analysis reads.
  // The failure-mode labels stay in metadata.ground_truth, never analysis input.
  const correct = judgedCorrect(groundTruth.other_data) ?? judgedCorrect(ctx.innerOtherData);
  const outcome = correct === undefined ? {} : { metrics: { task_success: correct ? 1 : 0 }, outcome_source: `other_data.correct: ${correct}` };
  return b.finish(MAST_FORMAT, { ...header, ...outcome, metadata });
}

/** `correct` of an AG2 record's other_data when it is a boolean. */
function judgedCorrect(otherData: unknown): boolean | undefined {
  const correct = otherData && typeof otherData === 'object' ? (otherData as { correct?: unknown }).correct : undefined;
  return typeof correct === 'boolean' ? correct : undefined;
}

// ---------------------------------------------------------------------------------------------
// Labels

function readLabels(ctx: Ctx, record: Node): Record<string, unknown> {
  const gt: Record<string, unknown> = {};
  const complete = (n: Node | undefined): n is Node => !!n && isComplete(ctx.doc, n);
  const annotation = property(record, 'mast_annotation');
  if (complete(annotation)) {
    const mast = valueOf(annotation) as Record<string, unknown>;
    gt.mast = mast;
    // Keys are codes ('1.3'); a key written as a name ('1.3 Step Repetition', 'step repetition') maps to its code.
    const code = (key: string): string => (/^\d\.\d$/.test(key.trim()) ? key.trim() : (/^(\d\.\d)\b/.exec(key.trim())?.[1] ?? ownField(NAME_TO_CODE, canonicalName(key)) ?? key));
    setModes(gt, Object.entries(mast ?? {}).filter(([, v]) => v === 1 || v === true || v === '1').map(([k]) => code(k)));
    gt.label_source = 'mast_annotation (MAD: LLM-as-judge per trace, 0/1 per failure mode)';
    gt.level = 'trace';
  }
  const annotations = property(record, 'annotations');
  if (complete(annotations) && annotations.type === 'array') {
    const list = valueOf(annotations) as unknown[];
    gt.annotations = list;
    const mast: Record<string, number> = {};
    for (const a of list) {
      if (!a || typeof a !== 'object') continue;
      const rec = a as Record<string, unknown>;
      const label = typeof rec['failure mode'] === 'string' ? (rec['failure mode'] as string) : undefined;
      const code = label ? ownField(NAME_TO_CODE, canonicalName(label)) : undefined;
      if (!code) continue;
      const votes = Object.entries(rec).filter(([k]) => /^annotator/i.test(k)).map(([, v]) => v === true || v === 1 || v === 'yes');
      const present = votes.length > 0 && votes.filter(Boolean).length * 2 > votes.length ? 1 : 0;
      mast[code] = Math.max(mast[code] ?? 0, present);
    }
    if (!gt.mast) {
      gt.mast = mast;
      setModes(gt, Object.entries(mast).filter(([, v]) => v === 1).map(([k]) => k));
      gt.label_source = 'annotations (MAD human-labelled: majority of annotators, by failure-mode name)';
      gt.level = 'trace';
    }
  }
  const note = property(record, 'note');
  if (complete(note)) {
    const options = valueOf(property(note, 'options'));
    if (options && typeof options === 'object') {
      const early: Record<string, boolean> = {};
      const mapped: Record<string, boolean> = {};
      for (const [name, v] of Object.entries(options as Record<string, unknown>)) {
        const yes = v === true || v === 1 || (typeof v === 'string' && /^y(es)?$/i.test(v.trim()));
        setOwnField(early, name, yes); // an option named "__proto__" stays a field
        const code = ownField(NAME_TO_CODE, canonicalName(name));
        if (code) mapped[code] = (mapped[code] ?? false) || yes;
      }
      gt.early_options = early;
      gt.early_mapped = mapped;
      setModes(gt, Object.entries(mapped).filter(([, v]) => v).map(([k]) => k));
      gt.label_source = 'note.options (MAST early human annotation round, 22 draft categories; renames mapped to final codes in early_mapped)';
      gt.level = 'trace';
    }
    const noteText = valueOf(property(note, 'text'));
    if (noteText !== undefined) gt.early_note = Array.isArray(noteText) ? noteText.join('\n') : noteText;
  }
  const other = property(record, 'other_data');
  if (complete(other)) gt.other_data = valueOf(other);
  return gt;
}

function setModes(gt: Record<string, unknown>, codes: string[]): void {
  const sorted = [...new Set(codes)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  gt.failure_modes = sorted;
  gt.failure_mode_names = Object.fromEntries(sorted.map((c) => [c, MAST_FAILURE_MODES[c] ?? c]));
}

// ---------------------------------------------------------------------------------------------
// Event chain helper

/** Adds events in order, each caused by the previous one, with an edge typed by the event. */
class Chain {
  private previous: string | undefined;
  constructor(private readonly b: ImportBuilder) {}

  add(event: TraceEvent, origin: Origin): TraceEvent {
    if (this.previous && !event.causes) event.causes = [this.previous];
    this.b.add(event, origin);
    if (this.previous) this.b.edge(this.previous, event.id, edgeTypeFor(event));
    this.previous = event.id;
    return event;
  }

  /** Adds an event that belongs to `from` (e.g. a stop derived from a message) without moving the chain. */
  side(event: TraceEvent, origin: Origin, from: string, type: EdgeType = 'causal'): void {
    event.causes = [from];
    event.parent ??= from;
    this.b.add(event, origin);
    this.b.edge(from, event.id, type);
  }
}

function edgeTypeFor(event: TraceEvent): EdgeType {
  if (event.type === 'tool_call') return 'tool_dependency';
  if (event.type === 'tool_result' || event.type === 'return') return 'return';
  return 'causal';
}

// ---------------------------------------------------------------------------------------------
// AG2 turns

interface TurnNode {
  node: Node;
  range: Range;
  complete: boolean;
}

/** Imports a list of AG2 turns `{content, role, name}` (content: string or list of lines). */
function importTurns(ctx: Ctx, turnNodes: TurnNode[], where: string): void {
  const { b } = ctx;
  ctx.metadata.log_format = 'ag2-turns';
  ctx.metadata.time = 'step-index'; // no clock in the turns: t counts them
  interface Turn {
    index: number;
    origin: Origin;
    agent: string;
    role?: string;
    content: string;
  }
  const turns: Turn[] = [];
  turnNodes.forEach(({ node, range, complete }, index) => {
    if (!complete) return b.problem('error', `${where}[${index}] is cut off; skipped`, range);
    if (node.type !== 'object') return b.problem('error', `${where}[${index}] must be an object {content, role, name}; skipped`, range);
    const value = valueOf(property(node, 'content'));
    const content = typeof value === 'string' ? value : Array.isArray(value) ? value.map(String).join('\n') : value == null ? '' : JSON.stringify(value);
    const agent = stringOf(property(node, 'name')) || stringOf(property(node, 'role'));
    if (!agent) return b.problem('error', `${where}[${index}] has neither "name" nor "role"; skipped`, range);
    turns.push({ index, origin: { range, record: index }, agent, role: stringOf(property(node, 'role')), content });
  });
  const mathChat = turns.some((t) => t.agent === 'mathproxyagent');
  // A turn is a tool result when the turn before it has code blocks and it comes from another agent
  // that executes code (an AG2 UserProxy / executor, or a reply starting `exitcode:`).
  const blocksOf = turns.map((t) => codeBlocks(t.content));
  const isResult = turns.map(
    (t, k) => k > 0 && blocksOf[k - 1].length > 0 && turns[k - 1].agent !== t.agent && (/proxy|executor|terminal/i.test(t.agent) || /^\s*exitcode:/i.test(t.content)),
  );
  const chain = new Chain(b);
  turns.forEach((turn, k) => {
    const id = `t${turn.index}`;
    if (isResult[k]) {
      const calls = blocksOf[k - 1].map((_, n) => `t${turns[k - 1].index}.call${n}`);
      chain.add({ id, t: turn.index, agent: turn.agent, type: 'tool_result', role: turn.role, from: turn.agent, tool: blocksOf[k - 1][0].lang || 'code', content: turn.content, causes: calls }, turn.origin);
      for (const call of calls) b.edge(call, id, 'return');
      return;
    }
    chain.add({ id, t: turn.index, agent: turn.agent, type: 'message', role: turn.role, from: turn.agent, content: turn.content }, turn.origin);
    const blocks = blocksOf[k];
    if (isResult[k + 1]) {
      blocks.forEach((block, n) => {
        chain.side({ id: `${id}.call${n}`, t: turn.index, agent: turn.agent, type: 'tool_call', tool: block.lang || 'code', from: turn.agent, to: turns[k + 1].agent, content: block.code }, turn.origin, id, 'tool_dependency');
      });
    }
    const terminate = turn.content.trimEnd().endsWith('TERMINATE');
    const boxed = mathChat && turn.agent !== 'mathproxyagent' && blocks.length === 0 && /\\boxed\{/.test(turn.content);
    if (terminate || boxed) {
      chain.side(
        { id: `${id}.stop`, t: turn.index, agent: turn.agent, type: 'stop', reason: 'task_complete', decided_by: terminate ? turn.agent : 'is_termination_msg (\\boxed{} answer)', scope: 'run', detail: terminate ? 'TERMINATE' : boxedAnswer(turn.content) },
        turn.origin,
        id,
      );
    }
  });
}

function boxedAnswer(text: string): string {
  const i = text.lastIndexOf('\\boxed{');
  return text.slice(i, i + 200).split('\n', 1)[0];
}

// ---------------------------------------------------------------------------------------------
// Raw logs inside a JSON string

/** Imports a trajectory string: picks the log format by content. */
function importLog(ctx: Ctx, node: Node, header: { costs?: Record<string, number>; task_id?: string }): void {
  const log = node.value as string;
  const complete = isComplete(ctx.doc, node);
  if (!complete) ctx.b.problem('error', 'the trajectory string is cut off; the complete log entries before the cut loaded', nodeRange(ctx.doc, node));
  if (new RegExp(CHATDEV_HEADER.source, 'm').test(log)) return importChatDev(ctx, node, log, complete, header);
  const trimmed = log.trimStart();
  if (trimmed.startsWith('{')) {
    const inner = parseJsonDocument(log, new LineIndex(log));
    const turns = property(inner.root, 'trajectory');
    if (turns?.type === 'array') {
      const nodes = items(turns);
      const offsets = mapStringOffsets(ctx.doc, node, nodes.flatMap((n) => [n.offset, n.offset + n.length]));
      const problem = valueOf(property(inner.root, 'problem_statement'));
      if (problem !== undefined && ctx.metadata.task === undefined) ctx.metadata.task = Array.isArray(problem) ? problem.join('\n') : problem;
      const other = valueOf(property(inner.root, 'other_data'));
      if (other !== undefined) ctx.innerOtherData = other;
      return importTurns(
        ctx,
        nodes.map((n, i) => ({ node: n, range: ctx.doc.lines.range(offsets[2 * i], offsets[2 * i + 1] - offsets[2 * i]), complete: isComplete(inner, n) })),
        'trajectory',
      );
    }
  }
  const blocks = [...log.matchAll(/^-{4,}[ \t]*(\S[^\n]*?)[ \t]*-{4,}[ \t]*$/gm)];
  if (blocks.length >= 2) return importConsoleBlocks(ctx, node, log, blocks);
  ctx.metadata.log_format = 'unsegmented';
  const range = nodeRange(ctx.doc, node);
  ctx.b.problem('warning', `the ${String(ctx.metadata.mas_name ?? 'unknown')} log format is not segmented into turns; imported as one message`, range);
  ctx.b.add({ id: 'L0', t: 0, type: 'message', agent: String(ctx.metadata.mas_name ?? 'system'), content: log }, { range, record: 0 });
}

/** Magentic-One / AutoGen console logs: `---------- Speaker ----------` blocks. */
function importConsoleBlocks(ctx: Ctx, node: Node, log: string, blocks: RegExpMatchArray[]): void {
  ctx.metadata.log_format = 'magentic-console';
  ctx.metadata.time = 'step-index'; // no clock in the blocks: t counts them
  const bounds = blocks.flatMap((m, i) => [m.index!, i + 1 < blocks.length ? blocks[i + 1].index! : log.length]);
  const offsets = mapStringOffsets(ctx.doc, node, bounds);
  const chain = new Chain(ctx.b);
  blocks.forEach((m, i) => {
    const body = log.slice(m.index! + m[0].length, bounds[2 * i + 1]).trim();
    const range = ctx.doc.lines.range(offsets[2 * i], offsets[2 * i + 1] - offsets[2 * i]);
    chain.add({ id: `b${i}`, t: i, type: 'message', agent: m[1], from: m[1], content: body }, { range, record: i });
  });
}

// ---------------------------------------------------------------------------------------------
// ChatDev

interface Entry {
  index: number;
  start: number;
  end: number;
  time: number;
  level: string;
  head: string;
  body: string;
}

interface Phase {
  name: string;
  assistant?: string;
  user?: string;
  limit?: number;
  turns: number;
  info: boolean;
  delegate?: string;
  lastSpeaker?: string;
}

/** Splits a ChatDev log into entries (decoded-string offsets). */
function chatDevEntries(log: string): Entry[] {
  const heads = [...log.matchAll(CHATDEV_HEADER)];
  // ChatDev logs dates as %Y-%d-%m; take %Y-%m-%d when a third field exceeds 12.
  const dayFirst = !heads.some((m) => Number(m[3]) > 12);
  return heads.map((m, i) => {
    const start = m.index!;
    let end = i + 1 < heads.length ? heads[i + 1].index! : log.length;
    while (end > start && /\s/.test(log[end - 1])) end--;
    const [day, month] = dayFirst ? [Number(m[2]), Number(m[3])] : [Number(m[3]), Number(m[2])];
    const time = Date.UTC(Number(m[1]), month - 1, day, Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
    const text = log.slice(start + m[0].length, end);
    const nl = text.indexOf('\n');
    return { index: i, start, end, time, level: m[7], head: nl === -1 ? text : text.slice(0, nl), body: nl === -1 ? '' : text.slice(nl + 1) };
  });
}

/** The utterance of a logged message: the echoed `[system prompt]` of the receiver removed. */
function utterance(body: string): string {
  const b = body.replace(/^\s+/, '');
  if (b.startsWith('[')) {
    const k = b.indexOf(']\n\n');
    if (k !== -1) return b.slice(k + 3).trim();
  }
  return b.trim();
}

/** `| **key** | value |` rows of a ChatDev parameter table. */
function tableParams(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/^\| \*\*(\w+)\*\* \| (.*) \|\s*$/gm)) out[m[1]] = m[2];
  return out;
}

/** `**key**=value` figures of a Software Info / Post Info block, as numbers. */
function infoFigures(body: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of body.matchAll(/\*\*(\w+)\*\*=\$?(-?[\d.]+)/g)) out[m[1]] = Number(m[2]);
  return out;
}

function importChatDev(ctx: Ctx, node: Node, log: string, complete: boolean, header: { costs?: Record<string, number>; task_id?: string }): void {
  const { b, doc } = ctx;
  ctx.metadata.log_format = 'chatdev';
  let entries = chatDevEntries(log);
  // A cut-off string loses its last entry, which may be partial (the cut is reported by importLog).
  if (!complete && entries.length > 0) entries = entries.slice(0, -1);
  const offsets = mapStringOffsets(doc, node, entries.flatMap((e) => [e.start, e.end]));
  const originOf = (e: Entry, k: number): Origin => ({ range: doc.lines.range(offsets[2 * k], offsets[2 * k + 1] - offsets[2 * k]), record: e.index });
  const t0 = entries.length ? entries[0].time : 0;
  const chain = new Chain(b);
  const stack: Phase[] = [];
  const usage: number[] = [];
  const phases: string[] = [];
  const chatdev: Record<string, unknown> = {};
  let lastSpeaker: string | undefined;
  let unknownTags = 0;

  const closePhase = (phase: Phase, e: Entry, k: number, conclusion: string | undefined): void => {
    const t = Math.max(0, e.time - t0);
    let from = `L${e.index}`;
    if (conclusion !== undefined) {
      const tokens = usage.splice(0).reduce((s, x) => s + x, 0);
      chain.add({ id: from, t, type: 'return', agent: phase.lastSpeaker ?? ORCHESTRATOR, from: phase.lastSpeaker ?? ORCHESTRATOR, to: ORCHESTRATOR, phase: phase.name, content: conclusion, tokens: tokens || undefined, parent: phase.delegate }, originOf(e, k));
    } else {
      from = phase.delegate ?? from;
    }
    if (!phase.info && phase.limit !== undefined && phase.turns >= phase.limit) {
      chain.side(
        { id: `L${e.index}.stop`, t, type: 'stop', agent: ORCHESTRATOR, reason: 'max_turns', decided_by: 'chat_turn_limit', scope: 'phase', phase: phase.name, detail: `${phase.name} ended after ${phase.turns} turn(s), its chat_turn_limit ${phase.limit}, without an <INFO> conclusion` },
        originOf(e, k),
        conclusion !== undefined ? `L${e.index}` : from,
      );
    }
  };

  entries.forEach((e, k) => {
    const t = Math.max(0, e.time - t0);
    const head = e.head;
    let m: RegExpExecArray | null;
    if (head === 'flask app.py did not start for online log' || head.startsWith('HTTP Request:')) return;
    if (head.startsWith('**[OpenAI_Usage_Info Receive]**')) {
      const total = /total_tokens:\s*(\d+)/.exec(e.body);
      if (total) usage.push(Number(total[1]));
      return;
    }
    if (head.startsWith('**[Preprocessing]**')) {
      const task = /\*\*task_prompt\*\*:\s*(.*)/.exec(e.body);
      const project = /\*\*project_name\*\*:\s*(.*)/.exec(e.body);
      if (task) ctx.metadata.task = task[1].trim();
      if (project) chatdev.project_name = project[1].trim();
      return;
    }
    if (head.startsWith('System: **[chatting]**')) {
      const p = tableParams(e.body);
      const name = p.phase_name ?? 'phase';
      const top = stack[stack.length - 1];
      if (top && name !== 'Reflection') closePhase(stack.pop()!, e, k, undefined);
      const limit = p.chat_turn_limit !== undefined && /^\d+$/.test(p.chat_turn_limit) ? Number(p.chat_turn_limit) : undefined;
      const phase: Phase = { name, assistant: p.assistant_role_name, user: p.user_role_name, limit, turns: 0, info: false, delegate: `L${e.index}` };
      stack.push(phase);
      phases.push(name);
      chain.add(
        { id: `L${e.index}`, t, type: 'delegate', agent: ORCHESTRATOR, from: ORCHESTRATOR, to: phase.user, phase: name, assistant_role: phase.assistant, user_role: phase.user, chat_turn_limit: limit, content: `${name}: ${phase.assistant ?? '?'} <-> ${phase.user ?? '?'}${limit !== undefined ? `, chat_turn_limit ${limit}` : ''}` },
        originOf(e, k),
      );
      return;
    }
    if (head.startsWith('System: **[RolePlaying]**')) return;
    if ((m = /^(.+?): \*\*\[Start Chat\]\*\*/.exec(head))) {
      const speaker = m[1];
      const phase = stack[stack.length - 1];
      const to = phase ? (speaker === phase.user ? phase.assistant : phase.user) : undefined;
      chain.add({ id: `L${e.index}`, t, type: 'message', agent: speaker, from: speaker, to, phase: phase?.name, content: utterance(e.body), parent: phase?.delegate }, originOf(e, k));
      lastSpeaker = speaker;
      if (phase) phase.lastSpeaker = speaker;
      return;
    }
    if ((m = /^(.+?): \*\*(.+?)<->(.+?) on : (\w+), turn (\d+)\*\*/.exec(head))) {
      const [, speaker, a, u, phaseName, turnText] = m;
      let phase = stack[stack.length - 1];
      if (!phase) {
        phase = { name: phaseName, assistant: a, user: u, turns: 0, info: false };
        stack.push(phase);
        phases.push(phaseName);
      }
      phase.turns = Math.max(phase.turns, Number(turnText) + 1);
      const content = utterance(e.body);
      const id = `L${e.index}`;
      chain.add(
        { id, t, type: 'message', agent: speaker, from: speaker, to: speaker === a ? u : a, phase: phaseName, turn: Number(turnText), content, tokens: usage.length ? usage.shift() : undefined, parent: phase.delegate },
        originOf(e, k),
      );
      lastSpeaker = speaker;
      phase.lastSpeaker = speaker;
      if (content.includes('<INFO>')) {
        phase.info = true;
        const line = content.slice(content.indexOf('<INFO>')).split('\n', 1)[0].slice(0, 200);
        chain.side({ id: `${id}.stop`, t, type: 'stop', agent: speaker, reason: 'task_complete', decided_by: speaker, scope: 'phase', phase: phaseName, detail: line }, originOf(e, k), id);
      }
      return;
    }
    if (head.startsWith('**[Seminar Conclusion]**')) {
      const phase = stack.pop() ?? { name: 'phase', turns: 0, info: false, lastSpeaker };
      closePhase(phase, e, k, e.body.trim());
      return;
    }
    if (head.startsWith('**[Update Codes]**')) {
      const what = e.body.trim().split('\n', 1)[0];
      const file = /^(\S*) updated\.?$/.exec(what)?.[1];
      const agent = lastSpeaker ?? ORCHESTRATOR;
      chain.add({ id: `L${e.index}`, t, type: 'tool_call', agent, from: agent, tool: 'update_codes', file, content: e.body.trim() }, originOf(e, k));
      return;
    }
    if (head.startsWith('**[Execute Detail]**')) {
      const text = e.body.trim();
      const d = /execute SimplePhase:\[(\w+)\] in ComposedPhase:\[(\w+)\], cycle (\d+)/.exec(text);
      chain.add({ id: `L${e.index}`, t, type: 'orchestrator_decision', agent: ORCHESTRATOR, content: text, phase: d?.[1], composed_phase: d?.[2], cycle: d ? Number(d[3]) : undefined }, originOf(e, k));
      return;
    }
    if (head.startsWith('**[Test Reports]**')) {
      const text = e.body.trim();
      chain.add({ id: `L${e.index}`, t, type: 'tool_result', agent: ORCHESTRATOR, tool: 'run_tests', content: text, error: /error|traceback|failed/i.test(text) && !/without errors/i.test(text) ? true : undefined }, originOf(e, k));
      return;
    }
    if (head.startsWith('**[Test Info]**')) {
      const who = /AI User \(([^)]+)\):\s*([\s\S]*)/.exec(e.body);
      const agent = who?.[1] ?? ORCHESTRATOR;
      chain.add({ id: `L${e.index}`, t, type: 'message', agent, from: agent, to: ORCHESTRATOR, content: (who?.[2] ?? e.body).trim() }, originOf(e, k));
      return;
    }
    if (head.startsWith('**[Software Info]**')) {
      chatdev.software_info = infoFigures(e.body);
      return;
    }
    if (head.startsWith('**[Post Info]**')) {
      while (stack.length) closePhase(stack.pop()!, e, k, undefined);
      const figures = infoFigures(e.body);
      chatdev.post_info = figures;
      const ends = /ChatDev Ends \((\d+)\)/.exec(e.body);
      chain.add({ id: `L${e.index}`, t, type: 'stop', agent: ORCHESTRATOR, reason: 'task_complete' as StopReason, decided_by: ORCHESTRATOR, scope: 'run', detail: ends ? ends[0] : 'ChatDev post-processing (end of the chat chain)', content: e.body.trim() }, originOf(e, k));
      const costs: Record<string, number> = {};
      if (figures.num_total_tokens >= 0) costs.tokens = figures.num_total_tokens;
      if (figures.duration >= 0) costs.wall_clock_s = figures.duration;
      if (Object.keys(costs).length) header.costs = costs;
      return;
    }
    if (/^\*\*\[[^\]]+\]\*\*/.test(head) || e.level !== 'INFO') unknownTags++;
  });
  chatdev.phases = phases;
  if (unknownTags) chatdev.unhandled_entries = unknownTags;
  const leftover = usage.reduce((s, x) => s + x, 0);
  if (leftover) chatdev.unattributed_tokens = leftover;
  ctx.metadata.chatdev = chatdev;
  if (typeof ctx.metadata.task === 'string' && !header.task_id) header.task_id = ctx.metadata.task.slice(0, 200);
}

/** MAST / MAD: a record with `mas_name` / `mast_annotation`, or an AG2 early record with `trajectory` and `note`. */
export const mastFormat: TraceFormat = {
  id: MAST_FORMAT,
  label: 'MAST / MAD record (ChatDev log, AG2 trajectory)',
  keys: ['mas_name', 'mast_annotation', 'trajectory'],
  detect(text) {
    const head = text.slice(0, 1 << 16);
    if (!/^\s*[[{]/.test(head)) return false;
    if (/"(mas_name|mast_annotation)"\s*:/.test(head)) return true;
    // AG2 early-round record: problem_statement + trajectory[] + other_data / note.
    const big = text.slice(0, 1 << 20);
    return /"trajectory"\s*:\s*\[/.test(big) && /"problem_statement"\s*:/.test(big) && /"(other_data|note)"\s*:/.test(big);
  },
  read: (text, fileName) => readMast(text, fileName),
};

registerFormat(mastFormat, true);

