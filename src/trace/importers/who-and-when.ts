/**
 * Importer for Who&When failure logs ("Which Agent Causes Task Failures and When?", ICML 2025;
 * github.com/mingyin1/Agents_Failure_Attribution, HF Kevin355/Who_and_When). One JSON object per
 * run with `history[]` of turns, in two shapes, told apart by content:
 * - Hand-Crafted (Magentic-One): turns `{role, content}`; the agent is in `role`:
 *   `human`, `WebSurfer`, `Assistant`, `FileSurfer`, `ComputerTerminal`, `Orchestrator (thought)`,
 *   `Orchestrator (-> X)` (a delegation to X), `Orchestrator (termination condition)` (the stop).
 * - Algorithm-Generated (AG2 CaptainAgent expert teams): turns `{name, role, content}`; the agent is
 *   `name` (`role` is only the chat role user/assistant), plus `system_prompt {agent: prompt}`.
 *
 * Events (all events of history[i] have `t` = i, ids starting `h{i}`, origin.record = i and the
 * range of history[i] in the file; there are no timestamps, so `t` counts steps, not seconds):
 * - `h{i}` the turn itself: `message` in its agent's lane (`role` keeps the role as written);
 *   `delegate` (to X) for `Orchestrator (-> X)`; `stop` for `Orchestrator (termination condition)`;
 *   `tool_result` for a ComputerTerminal / Computer_terminal reply that ran code (`exit_code` when
 *   printed); a reply that ran nothing (AG2 "There is no code ... to execute", Magentic-One "No code
 *   block detected", "not confirmed ... not run") stays a `message`.
 * - `h{i}.call{k}` `tool_call` for the k-th fenced code block of the message whose code the next
 *   terminal reply executed (tool = the block's language, or `code`); code never run is plain text.
 * - `h{i}.stop` `stop` derived from the turn: a message ending in `TERMINATE` (AG2's termination
 *   word: scope `run` for AG2 teams, `agent` for Magentic-One agents, whose orchestrator decides),
 *   or, for a Magentic-One run with no termination-condition turn, the last turn when it carries the
 *   harness's crash output (Traceback / `SCENARIO.PY COMPLETE`): reason `error`, decided_by `harness`.
 * Stop reasons of the termination condition: `Max rounds (N) reached` -> max_turns; `Max time (Ns)
 * reached` -> timeout; otherwise by the Orchestrator's preceding thought: `Request satisfied` ->
 * task_complete, `Replan counter exceeded` / stall -> loop_breaker, else unknown.
 * Edges: consecutive turns `causal`; message -> its tool calls `tool_dependency`; tool call -> the
 * terminal's result `return`; delegate -> the delegated agent's next turn `message`; turn -> its stop `causal`.
 *
 * METADATA (trace.metadata; ground truth is for scoring only, never analysis input):
 * - `source`: 'who-and-when'; `subset`: 'Hand-Crafted' | 'Algorithm-Generated' (by content);
 * - `task`: { question, question_ID, level } as in the file (the task, not a label);
 * - `ground_truth`: {
 *     mistake_agent: string (verbatim; matches a lane name except for a few misspellings in the data),
 *     mistake_step: number — the dataset's string parsed as an integer: a 0-BASED INDEX INTO history[]
 *       (checked on the corpus: history[mistake_step] is spoken by mistake_agent in 60 of 61 files),
 *       so the decisive event is `h{mistake_step}` and its origin.record === mistake_step,
 *     mistake_step_raw: string (as written), mistake_event: 'h{mistake_step}' (when in range),
 *     mistake_step_agent: the lane of history[mistake_step] as imported (to spot label/lane mismatches),
 *     mistake_reason: string, mistake_type?: string, labels?: unknown (verbatim when present),
 *     ground_truth?: string (the dataset's correct final answer, verbatim; `groundtruth` when so spelled),
 *     is_correct?: boolean (Algorithm-Generated), is_corrected?: boolean (Hand-Crafted) }
 * - `system_prompts`: { agent: prompt } (Algorithm-Generated), `extra`: other top-level keys verbatim;
 * - `time`: 'step-index' (t counts history steps).
 * TRACE FIELDS: `metrics.task_success` = 1 / 0 from `is_correct` when the file has it, else from its
 * final answer (`FINAL ANSWER: …`) against its `ground_truth` answer by GAIA's scorer (gaia-scorer.ts);
 * `outcome_source` says which (the outcome, which the analysis may read; the mistake labels it may not).
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import type { LoadedTrace, Origin, Range } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { ImportBuilder, baseName, codeBlocks } from './json-import';
import { gaiaCorrect } from './gaia-scorer';
import { isComplete, items, nodeRange, parseJsonDocument, properties, property, stringOf, valueOf } from '../json-positions';

export const WHO_AND_WHEN_FORMAT = 'who-and-when';

/** Top-level keys that are labels (kept under metadata.ground_truth). */
const LABEL_KEYS = ['mistake_agent', 'mistake_step', 'mistake_reason', 'mistake_type', 'labels', 'ground_truth', 'groundtruth', 'is_correct', 'is_corrected'];
const TASK_KEYS = ['question', 'question_ID', 'level'];

/** One turn of history[] as read. */
interface Turn {
  index: number;
  origin: Origin;
  agent: string;
  role: string;
  /** Magentic-One qualifier in parentheses: 'thought', '-> X', 'termination condition'. */
  qualifier?: string;
  content: string;
  /** True when the agent came from `name` (AG2), not from `role`. */
  named: boolean;
}

const isTerminal = (agent: string): boolean => /^computer[_ ]?terminal$/i.test(agent);
/** A terminal reply saying it ran nothing (AG2 "There is no code ...", Magentic-One "No code block detected", not confirmed). */
const noCodeReply = (content: string): boolean =>
  /^\s*(there is no code\b|no code block detected)/i.test(content) || /\bno code (block )?(was )?(found|to execute)\b|not confirmed by the user and so was not run/i.test(content.slice(0, 300));

/** Reads a Who&When log. Never throws: problems are returned with positions. */
export function readWhoAndWhen(text: string, fileName: string): LoadedTrace {
  const doc = parseJsonDocument(text);
  const b = new ImportBuilder();
  b.problems.push(...doc.problems);
  const root = doc.root;
  const fileStart: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  if (!root || root.type !== 'object') {
    b.problem('error', 'a Who&When log must be a JSON object with a "history" array', root ? nodeRange(doc, root) : fileStart);
    return b.finish(WHO_AND_WHEN_FORMAT, { metadata: { source: 'who-and-when' } });
  }
  const historyNode = property(root, 'history');
  if (!historyNode || historyNode.type !== 'array') {
    b.problem('error', '"history" must be an array of turns', historyNode ? nodeRange(doc, historyNode) : nodeRange(doc, root));
  }

  // Pass 1: the turns.
  const turns: Turn[] = [];
  items(historyNode).forEach((item, index) => {
    const range = nodeRange(doc, item);
    if (!isComplete(doc, item)) {
      b.problem('error', `history[${index}] is cut off; skipped`, range);
      return;
    }
    if (item.type !== 'object') {
      b.problem('error', `history[${index}] must be an object {role or name, content}; skipped`, range);
      return;
    }
    const turn = readTurn(item, index, { range, record: index }, b, doc, range);
    if (turn) turns.push(turn);
  });
  const subset = turns.some((t) => t.named)
    ? 'Algorithm-Generated'
    : turns.some((t) => t.qualifier !== undefined) || turns.some((t) => /^(WebSurfer|FileSurfer|ComputerTerminal)$/.test(t.agent))
      ? 'Hand-Crafted'
      : 'unknown';
  const magentic = subset === 'Hand-Crafted';

  // Which messages' code did a terminal run? result turn index -> code message index.
  const executedBy = new Map<number, number>();
  const codeOf = new Map<number, { lang: string; code: string }[]>();
  let lastTerminal = -1;
  turns.forEach((turn, k) => {
    if (!isTerminal(turn.agent)) return;
    if (!noCodeReply(turn.content)) {
      for (let j = k - 1; j > lastTerminal; j--) {
        const prev = turns[j];
        if (isTerminal(prev.agent) || prev.qualifier !== undefined) continue;
        const blocks = codeBlocks(prev.content);
        if (blocks.length > 0) {
          executedBy.set(k, j);
          codeOf.set(j, blocks);
          break;
        }
      }
    }
    lastTerminal = k;
  });
  const hasTermination = turns.some((t) => t.qualifier === 'termination condition');

  // Pass 2: events and edges.
  let previous: string | undefined;
  let lastThought = '';
  const pendingDelegates = new Map<string, string>(); // target agent -> delegate event id
  turns.forEach((turn, k) => {
    const id = `h${turn.index}`;
    const base: Pick<TraceEvent, 't' | 'agent'> = { t: turn.index, agent: turn.agent };
    const causes = previous ? [previous] : undefined;
    let event: TraceEvent;
    if (turn.qualifier === 'termination condition') {
      const { reason, decidedBy } = terminationReason(turn.content, lastThought);
      event = { id, ...base, type: 'stop', role: turn.role, reason, decided_by: decidedBy, scope: 'run', detail: firstLine(turn.content), final_answer: finalAnswer(turn.content), content: turn.content, causes };
    } else if (turn.qualifier?.startsWith('->')) {
      const to = turn.qualifier.slice(2).trim();
      event = { id, ...base, type: 'delegate', role: turn.role, from: turn.agent, to, content: turn.content, causes };
      pendingDelegates.set(to, id);
    } else if (isTerminal(turn.agent) && executedBy.has(k)) {
      const callIndex = executedBy.get(k)!;
      const calls = codeOf.get(callIndex)!.map((_, n) => `h${turns[callIndex].index}.call${n}`);
      const lang = codeOf.get(callIndex)![0].lang || 'code';
      event = { id, ...base, type: 'tool_result', role: turn.role, tool: lang, from: turn.agent, content: turn.content, exit_code: exitCode(turn.content), causes: [...(causes ?? []), ...calls.filter((c) => c !== previous)] };
    } else {
      const to = magentic && turn.agent !== 'Orchestrator' ? 'Orchestrator' : undefined;
      event = { id, ...base, type: 'message', role: turn.role, from: turn.agent, to, content: turn.content, causes };
    }
    b.add(event, turn.origin);
    if (previous) b.edge(previous, id, 'causal');
    const delegatedBy = pendingDelegates.get(turn.agent);
    if (delegatedBy && delegatedBy !== id) {
      b.edge(delegatedBy, id, 'message');
      pendingDelegates.delete(turn.agent);
    }
    if (turn.agent === 'Orchestrator' && turn.qualifier === 'thought') lastThought = turn.content;

    // Tool calls of a message whose code a terminal ran.
    const blocks = codeOf.get(k);
    if (blocks) {
      const resultIndex = [...executedBy].find(([, j]) => j === k)?.[0];
      const terminal = resultIndex !== undefined ? turns[resultIndex].agent : undefined;
      blocks.forEach((block, n) => {
        const callId = `${id}.call${n}`;
        b.add({ id: callId, t: turn.index, agent: turn.agent, type: 'tool_call', tool: block.lang || 'code', from: turn.agent, to: terminal, content: block.code, parent: id, causes: [id] }, turn.origin);
        b.edge(id, callId, 'tool_dependency');
        if (resultIndex !== undefined) b.edge(callId, `h${turns[resultIndex].index}`, 'return');
      });
    }

    // Stops derived from the turn.
    const isLast = k === turns.length - 1;
    if (event.type === 'message' && turn.content.trimEnd().endsWith('TERMINATE')) {
      b.add({ id: `${id}.stop`, t: turn.index, agent: turn.agent, type: 'stop', reason: 'task_complete', decided_by: turn.agent, scope: magentic ? 'agent' : 'run', detail: 'TERMINATE', parent: id, causes: [id] }, turn.origin);
      b.edge(id, `${id}.stop`, 'causal');
    } else if (magentic && isLast && !hasTermination && /Traceback \(most recent call last\)|SCENARIO\.PY COMPLETE/.test(turn.content)) {
      const crashed = /Traceback \(most recent call last\)|Error/.test(turn.content);
      b.add(
        { id: `${id}.stop`, t: turn.index, agent: turn.agent, type: 'stop', reason: crashed ? 'error' : 'unknown', decided_by: 'harness', scope: 'run', detail: errorLine(turn.content), final_answer: finalAnswer(turn.content), parent: id, causes: [id] },
        turn.origin,
      );
      b.edge(id, `${id}.stop`, 'causal');
    }
    previous = id; // the next turn follows the turn itself
  });

  // Trace fields and metadata.
  const groundTruth: Record<string, unknown> = {};
  const task: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  let systemPrompts: unknown;
  for (const [key, node] of properties(root)) {
    if (key === 'history') continue;
    if (!isComplete(doc, node)) continue;
    const value = valueOf(node);
    if (LABEL_KEYS.includes(key)) groundTruth[key] = value;
    else if (TASK_KEYS.includes(key)) task[key] = value;
    else if (key === 'system_prompt') systemPrompts = value;
    else extra[key] = value;
  }
  if ('mistake_step' in groundTruth) {
    const raw = groundTruth.mistake_step;
    const step = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : undefined;
    groundTruth.mistake_step_raw = raw;
    const stepNode = property(root, 'mistake_step')!;
    if (step === undefined) {
      delete groundTruth.mistake_step;
      b.problem('warning', `"mistake_step" ${JSON.stringify(raw)} is not a step index`, nodeRange(doc, stepNode));
    } else {
      groundTruth.mistake_step = step;
      const turn = turns.find((t) => t.index === step);
      if (turn) {
        groundTruth.mistake_event = `h${step}`;
        groundTruth.mistake_step_agent = turn.agent;
      } else {
        b.problem('warning', `"mistake_step" ${step} is outside history[0..${items(historyNode).length - 1}]`, nodeRange(doc, stepNode));
      }
    }
  }
  const metadata: Record<string, unknown> = { source: 'who-and-when', subset, time: 'step-index', task };
  if (Object.keys(groundTruth).length > 0) metadata.ground_truth = groundTruth;
  if (systemPrompts !== undefined) metadata.system_prompts = systemPrompts;
  if (Object.keys(extra).length > 0) metadata.extra = extra;
  return b.finish(WHO_AND_WHEN_FORMAT, {
    trace_id: `who-and-when/${subset}/${baseName(fileName)}`,
    task_id: typeof task.question_ID === 'string' && task.question_ID ? task.question_ID : undefined,
    system: subset === 'Hand-Crafted' ? 'Magentic-One' : subset === 'Algorithm-Generated' ? 'AG2 CaptainAgent' : undefined,
    topology: subset === 'Hand-Crafted' ? 'centralized' : undefined,
    // The run's judged outcome is what a user of the log knows (a reward, not a blame label): it
    // lets `otrace analyze` see the failure. The blame labels stay in metadata.ground_truth.
    ...judgedOutcome(groundTruth, turns),
    metadata,
  });
}

/** Longest answer quoted in an outcome's source (characters). */
const SOURCE_ANSWER_CHARS = 40;

/**
 * The run's outcome as the file gives it: `is_correct` (Algorithm-Generated); else, when the file
 * holds the dataset's correct answer (`ground_truth`) and the run printed its final answer
 * (`FINAL ANSWER: …`, the last one), whether that answer is the correct one by GAIA's scorer
 * (Hand-Crafted: GAIA and AssistantBench tasks, whose files have no `is_correct`: a wrong answer
 * was shown as a run with no outcome). Nothing when neither is there.
 */
function judgedOutcome(groundTruth: Record<string, unknown>, turns: readonly Turn[]): { metrics: { task_success: number }; outcome_source: string } | Record<string, never> {
  if (typeof groundTruth.is_correct === 'boolean') return { metrics: { task_success: groundTruth.is_correct ? 1 : 0 }, outcome_source: `is_correct: ${groundTruth.is_correct}` };
  const truth = typeof groundTruth.ground_truth === 'string' ? groundTruth.ground_truth : typeof groundTruth.groundtruth === 'string' ? groundTruth.groundtruth : undefined;
  if (truth === undefined || truth.trim() === '') return {};
  let answer: string | undefined;
  for (let k = turns.length - 1; k >= 0 && answer === undefined; k--) answer = finalAnswer(turns[k].content);
  if (answer === undefined || answer === '') return {};
  const quote = (s: string) => `“${s.length > SOURCE_ANSWER_CHARS ? `${s.slice(0, SOURCE_ANSWER_CHARS - 1)}…` : s}”`;
  const correct = gaiaCorrect(answer, truth);
  return {
    metrics: { task_success: correct ? 1 : 0 },
    outcome_source: correct ? `its final answer ${quote(answer)} is the dataset's correct answer (GAIA's scorer)` : `its final answer ${quote(answer)} is not the dataset's correct answer ${quote(truth)} (GAIA's scorer)`,
  };
}

/** Reads one history item; reports and returns undefined when it has no speaker. */
function readTurn(item: Node, index: number, origin: Origin, b: ImportBuilder, doc: ReturnType<typeof parseJsonDocument>, range: Range): Turn | undefined {
  const name = stringOf(property(item, 'name'))?.trim();
  const role = stringOf(property(item, 'role'))?.trim() ?? '';
  const contentNode = property(item, 'content');
  let content: string;
  const value = valueOf(contentNode);
  if (typeof value === 'string') content = value;
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) content = value.join('\n');
  else if (value === undefined || value === null) content = '';
  else {
    content = JSON.stringify(value);
    b.problem('warning', `history[${index}].content is not text; kept as JSON`, nodeRange(doc, contentNode!));
  }
  if (name) return { index, origin, agent: name, role: role || name, content, named: true };
  if (!role) {
    b.problem('error', `history[${index}] has neither "name" nor "role"; skipped`, range);
    return undefined;
  }
  const m = /^(.*?)\s*\(([^()]*)\)\s*$/.exec(role);
  if (m && m[1]) return { index, origin, agent: m[1], role, qualifier: m[2].trim(), content, named: false };
  return { index, origin, agent: role, role, content, named: false };
}

/** The stop reason of a Magentic-One termination-condition turn (see the module comment). */
function terminationReason(content: string, lastThought: string): { reason: StopReason; decidedBy: string } {
  const head = content.slice(0, 500);
  if (/Max rounds \(\d+\) reached/i.test(head)) return { reason: 'max_turns', decidedBy: 'max_rounds' };
  if (/Max time \(\d+s?\) reached/i.test(head)) return { reason: 'timeout', decidedBy: 'max_time' };
  if (/max.?stalls?|stall(ed|ing)? .*exceeded|Replan counter exceeded/i.test(lastThought.slice(0, 500))) return { reason: 'loop_breaker', decidedBy: 'Orchestrator' };
  if (/Request satisfied/i.test(lastThought.slice(0, 500))) return { reason: 'task_complete', decidedBy: 'Orchestrator' };
  return { reason: 'unknown', decidedBy: 'Orchestrator' };
}

function firstLine(text: string): string {
  const line = text.trimStart().split('\n', 1)[0];
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

/** The harness's `FINAL ANSWER: ...` line, when present. */
function finalAnswer(text: string): string | undefined {
  const m = /^FINAL ANSWER:\s*(.*)$/m.exec(text);
  return m ? m[1].trim() : undefined;
}

/** The most telling error line of a crash output (the exception line), else the first line. */
function errorLine(text: string): string {
  const m = /^(?:[\w.]+(?:Error|Exception)\b.*)$/m.exec(text);
  const line = m ? m[0] : firstLine(text);
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

/** The exit code printed by a terminal (AG2 `exitcode: N`, Magentic-One `... exit code: N` / `exit code was: N`). */
function exitCode(text: string): number | undefined {
  const m = /exit ?code(?: was)?:?\s*(-?\d+)/i.exec(text.slice(0, 500));
  return m ? Number(m[1]) : undefined;
}

/** Who&When: a JSON object whose `history` array holds turns with `content`. */
export const whoAndWhenFormat: TraceFormat = {
  id: WHO_AND_WHEN_FORMAT,
  label: 'Who&When failure log (history[] of turns)',
  keys: ['history'],
  detect(text) {
    const head = text.slice(0, 1 << 20);
    if (!/^\s*\{/.test(head)) return false;
    const history = /"history"\s*:\s*\[/.exec(head);
    if (!history) return false;
    const events = /"events"\s*:\s*\[/.exec(head);
    if (events && events.index < history.index) return false;
    if (/"(mas_name|resourceSpans|resource_spans)"\s*:/.test(head) || !/"content"\s*:/.test(head)) return false;
    // a Gemini API history (a Gemini CLI checkpoint): turns {role: user|model, parts[]}, never Who&When's {role, content}
    if (/^\s*\{\s*"history"\s*:\s*\[\s*\{\s*"role"\s*:\s*"(user|model)"\s*,\s*"parts"\s*:/.test(head)) return false;
    // Who&When's own signs (a cut-off file may have lost the labels, which follow history):
    // its label keys, Magentic-One's "Orchestrator (...)" roles, or AG2 turns with name + user/assistant role.
    return (
      /"(mistake_agent|mistake_step|mistake_reason|question_ID|is_corrected)"\s*:/.test(head) ||
      /"role"\s*:\s*"Orchestrator \(/.test(head) ||
      (/"name"\s*:\s*"/.test(head) && /"role"\s*:\s*"(user|assistant)"/.test(head))
    );
  },
  read: (text, fileName) => readWhoAndWhen(text, fileName),
};

registerFormat(whoAndWhenFormat, true);
