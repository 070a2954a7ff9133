/**
 * Importer of OpenAI Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).
 *
 * The record format (codex-rs `RolloutItem`, as written by Codex CLI / Desktop 0.4x-0.10x; described
 * in the corpus' SOURCE.md): every line is `{timestamp, type, payload}` with `type` one of
 * `session_meta` (the first line), `turn_context`, `response_item` (model I/O: `message`,
 * `reasoning`, `function_call` / `function_call_output`, `custom_tool_call` /
 * `custom_tool_call_output`, `local_shell_call`, `web_search_call`, `compaction`, ...),
 * `event_msg` (`task_started`, `user_message`, `agent_message`, `token_count`, `task_complete`,
 * `turn_aborted`, `context_compacted`, `error`, ...) and `compacted` (the summary that replaces the
 * history).
 *
 * Mapping to the trace (one lane, `codex`):
 * - turns: `task_started` opens a turn (`turn_id` on every event of it, `metadata.turns` lists them);
 *   `task_complete` -> `stop` (task_complete, content = last agent message); `turn_aborted` ->
 *   `stop` (interrupted / replaced -> user_abort); an `error` event -> `stop` (error, or
 *   budget_exhausted for context window / usage limits); a turn that started and has none of these
 *   ends with no stop recorded; these stops carry `scope: "turn"` (a hand-back to the user), except
 *   in a worker's rollout pulled in by its parent (the analysis reads its last stop as its lane's run);
 * - prompts: `event_msg/user_message` -> `message` from `user` (the `response_item` user and
 *   developer messages are injected context and repeat the prompt; they are used only when the file
 *   has no user_message events); assistant `response_item/message` -> `message` (`phase` kept);
 *   `agent_message` / `agent_reasoning` events repeat response items and give no event;
 * - tool calls: every `*_call` response item -> `tool_call` (id = `call_id`), every `*_call_output`
 *   -> `tool_result` (id `<call_id>:result`, `causes` = the call) with a `tool_dependency` edge,
 *   paired by `call_id` however many calls run in parallel; a `web_search_call` has no result;
 * - causes: a model output (message or call) is caused by the prompt and results received since the
 *   previous output;
 * - tokens: `token_count` whose cumulative `total_token_usage.total_tokens` grew puts
 *   `last_token_usage` by kind (`usage`: input without the cached part, cache read, output,
 *   reasoning) on the last model output since the previous count, and its output tokens as the
 *   event's own `tokens`; `trace.costs` takes the last cumulative usage;
 * - compaction: `compacted` -> `message` from `compaction` (the summary) and `context_compacted` /
 *   a `compaction` response item -> `orchestrator_decision`, all with `compaction: true`; the
 *   content is the summary and then the history the compaction kept (`replacement_history`, one
 *   line per item, codex-history.ts);
 * - commands: a result's `exit_code` (and `is_error` when it is not 0) comes from the
 *   `exec_command_end` event with its `call_id` (`patch_apply_end` `success: false` for a patch),
 *   else from the header Codex writes before the output (`Process exited with code N`, `Exit
 *   code: N`) or the older JSON output's `metadata.exit_code`; never from free text in the output
 *   (codex-exit-code.ts);
 * - forks (`codex fork`, a sub-agent spawned with its parent's history): the first `session_meta`
 *   names the parent (`forked_from_id`, kept in the metadata); a second `session_meta` (another
 *   thread's) starts the replay of the parent's history, written as it was when the fork was made.
 *   The replay (until a record more than a second after the one before it, or a turn whose UUID v7
 *   id is newer than the fork's own) is one `meta` message from `harness` with `inherited: true`
 *   and its transcript, placed where the fork's own records start: none of its turns, calls,
 *   stops or tokens are the fork's (the fork's cumulative token counts go on from the parent's; the
 *   replayed total is taken off `trace.costs`); an info says it;
 * - multi-agent rollouts: a `spawn_agent` call is a `spawn` (id = call_id) to the worker's lane
 *   (`<role>:<nickname>`, from `collab_agent_spawn_end` or the call's output `{agent_id, nickname}`);
 *   the child rollouts beside the parent (`rollout-*-<thread id>.jsonl` in the same folder, their
 *   `session_meta.source.subagent.thread_spawn.parent_thread_id` naming the parent) are read into
 *   those lanes (ids prefixed `<nickname>/`), their last assistant message becoming a `return` to
 *   the parent; a `wait_agent` call's output is an `aggregate` (the join) caused by the workers'
 *   returns. A child rollout opened alone gets an info problem naming its parent thread (and its
 *   depth and agent path, `thread_spawn.depth` / `agent_path`). A worker's own workers are read the
 *   same way, into lanes under it. Multi-agent v2 messages between agents (an
 *   `inter_agent_communication` record, or the JSON envelope `{author, recipient, content,
 *   trigger_turn}` written as an assistant item) are `message`s from the author's lane to the
 *   recipient's, by agent path (`/root`, `/root/<task name>` from the spawn's output).
 * - records that give no event are counted by kind in one warning.
 * Time `t`: seconds since the first record's timestamp (a record stamped earlier reads 0, never
 * negative); child rollouts share the parent's time base.
 */
import { firstJsonLines, registerFormat, type FileAccess, type GrowingImport, type TraceFormat } from '../formats';
import { GrowingRecords, type GrowingFiles, type JsonlParts } from '../jsonl-feed';
import type { LoadedTrace, Problem } from '../model';
import { childLane, lookAhead, LookAheadScan, RECORD_TYPES, ROOT_LANE, ROOT_PATH, RolloutReader, threadSpawnOf, type LookAhead, type RolloutRead, type Spawn } from './codex-rollout';
import { baseName, dirName, isObject, joinPath, lineRange, readJsonlRecords, recordOrigin, str, TraceAssembler, type JsonlRecord } from './jsonl-records';

export { abortReason } from './codex-rollout';

/** The lane of the Codex agent. */
export const CODEX_LANE = ROOT_LANE;

type Json = Record<string, unknown>;

/**
 * Reads a Codex rollout file.
 * @param text the file's content.
 * @returns the trace (format `codex`, one lane `codex`), the origin of every event (the line of its
 * record) and positioned problems (bad or cut-off lines, outputs of unknown calls). Never throws.
 */
export function readCodex(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const parse = (t: string, path?: string): JsonlParts => ({ ...readJsonlRecords(t, path), marked: USER_MESSAGE.test(t) });
  const records = parse(text);
  const start = startOf(records.records);
  const problems = records.problems.slice();
  const reader = new RolloutReader({ out: new TraceAssembler(problems), problems, lane: start.ownLane, idPrefix: '', skipped: {}, path: start.ownPath }, lookAhead(records.records, !!records.marked));
  for (const r of records.records) reader.readRecord(r);
  return finishCodex(reader, start, fileName, files, (path) => {
    const child = files?.readText(path);
    return child === undefined ? undefined : parse(child, path);
  });
}

/**
 * The prompts are the user_message events; only a file without them (as JSON structure, not inside
 * a string, where the quotes would be escaped) has its prompts in the response items alone.
 */
const USER_MESSAGE = /"type"\s*:\s*"user_message"/;

/** What the rollout's first `session_meta` says: the thread that spawned it (a child rollout), and so its own lane. */
interface RolloutStart {
  first?: JsonlRecord;
  /** The first `session_meta`'s payload. */
  meta?: Json;
  spawnedBy?: SpawnedBy;
  ownLane: string;
  /** The rollout's agent path: `/root` for a rollout no thread spawned, a sub-agent's own (when its `session_meta` says it). */
  ownPath?: string;
  /** All of it as one string, to see it changed. */
  key: string;
}

function startOf(records: readonly JsonlRecord[]): RolloutStart {
  const first = records.find((r) => r.value.type === 'session_meta');
  const meta = first && isObject(first.value.payload) ? first.value.payload : undefined;
  const spawnedBy = parentThreadOf(meta);
  const ownLane = spawnedBy ? childLane(spawnedBy.role, spawnedBy.nickname) : CODEX_LANE;
  const ownPath = spawnedBy ? spawnedBy.path : ROOT_PATH;
  return { first, meta, spawnedBy, ownLane, ownPath, key: JSON.stringify([first?.line, spawnedBy, ownLane]) };
}

/** Deepest chain of sub-agents read from the folder (a guard against spawn cycles in odd files). */
const MAX_SPAWN_DEPTH = 8;

/** Where the workers of one rollout are read into: its lane, id prefix, agent path and depth. */
interface Spawner {
  read: RolloutRead;
  lane: string;
  idPrefix: string;
  path?: string;
  depth: number;
}

/**
 * After the rollout's records (read by `reader`): its end, the child rollouts of the workers it
 * spawned (read into their lanes), the joins, and the trace. Changes `reader` and its trace.
 * @param recordsOf the records of a child rollout (its path put on its problems).
 */
function finishCodex(reader: RolloutReader, start: RolloutStart, fileName: string, files: FileAccess | undefined, recordsOf: (path: string) => JsonlParts | undefined): LoadedTrace {
  const { out, problems, skipped } = reader.ctx;
  const { first, spawnedBy, ownLane } = start;
  const main = reader.finish();
  const children: string[] = [];
  readWorkers({ read: main, lane: ownLane, idPrefix: '', path: start.ownPath, depth: 0 }, reader, fileName, files, recordsOf, children, new Set(typeof start.meta?.id === 'string' ? [start.meta.id] : []));
  if (spawnedBy) {
    const where = `${spawnedBy.depth !== undefined && spawnedBy.depth > 1 ? ` at depth ${spawnedBy.depth}` : ''}${spawnedBy.path ? ` (${spawnedBy.path})` : ''}`;
    problems.push({ severity: 'info', message: `this rollout is the sub-agent ${spawnedBy.nickname ?? ''}${spawnedBy.role ? ` (${spawnedBy.role})` : ''} of thread ${spawnedBy.parent}${where}; open the parent rollout to see it in its run`, range: first ? recordOrigin(first).range : lineRange(0, 0) });
  }
  const kinds = Object.entries(skipped);
  if (kinds.length) {
    const total = kinds.reduce((n, [, c]) => n + c, 0);
    problems.push({ severity: 'warning', message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`, range: main.firstSkipped ?? lineRange(0, 0) });
  }
  const header = main.header;
  (header.metadata as Json).child_rollouts = children;
  if (spawnedBy) {
    (header.metadata as Json).parent_thread_id = spawnedBy.parent;
    if (spawnedBy.depth !== undefined) (header.metadata as Json).spawn_depth = spawnedBy.depth;
    if (spawnedBy.path !== undefined) (header.metadata as Json).agent_path = spawnedBy.path;
  }
  return out.finish('codex', header);
}

/**
 * Reads the rollouts of the workers `parent` spawned (`rollout-*-<thread id>.jsonl` in the folder
 * of `fileName`) into their lanes, then theirs (a sub-agent's own workers, lanes with the sub-agent
 * as parent), and makes the joins: each `wait_agent` output is an aggregate of the returns of the
 * workers it waited for. Changes the trace `reader` writes into; adds the paths read to `children`.
 * @param seen thread ids already read (a thread is read once, whoever names it).
 */
function readWorkers(parent: Spawner, reader: RolloutReader, fileName: string, files: FileAccess | undefined, recordsOf: (path: string) => JsonlParts | undefined, children: string[], seen: Set<string>): void {
  const { out, problems, skipped } = reader.ctx;
  const main = parent.read;
  for (const spawn of main.spawns.values()) {
    // Only the rollout's own spawn calls (not the spawns of a parent's history a fork replays).
    if (!spawn.thread || !spawn.eventId || !files || seen.has(spawn.thread) || parent.depth >= MAX_SPAWN_DEPTH) continue;
    const dir = dirName(fileName);
    const name = files.list(dir === '' ? '.' : dir)?.find((n) => n.startsWith('rollout-') && n.endsWith(`-${spawn.thread}.jsonl`));
    if (!name) continue;
    const path = joinPath(fileName, ...(dir ? [dir] : []), name);
    const child = recordsOf(path);
    if (child === undefined) continue;
    seen.add(spawn.thread);
    problems.push(...child.problems);
    const lane = childLane(spawn.role, spawn.nickname ?? spawn.thread);
    const idPrefix = `${parent.idPrefix}${spawn.nickname ?? spawn.thread}/`;
    const childPath = spawn.path ?? threadSpawnOf(startOf(child.records).meta).agent_path;
    const childReader = new RolloutReader({ out, problems, lane, idPrefix, file: path, base: main.base, skipped, callerLane: parent.lane, path: childPath, callerPath: parent.path }, lookAhead(child.records, !!child.marked));
    for (const r of child.records) childReader.readRecord(r);
    const read = childReader.finish();
    children.push(path);
    spawn.lane = lane;
    // spawn -> the child's first event; the child's final answer returns to the parent.
    out.edge(spawn.eventId, read.firstEventId, 'spawn');
    if (read.finalId) {
      const fin = out.get(read.finalId);
      if (fin) {
        fin.type = 'return';
        fin.to = parent.lane;
      }
      spawn.returnId = read.finalId;
    }
    readWorkers({ read, lane, idPrefix, path: childPath, depth: parent.depth + 1 }, reader, path, files, recordsOf, children, seen);
  }
  // Joins: each wait_agent output is an aggregate of the returns of the workers it waited for.
  for (const w of main.waits) {
    const agg = out.get(w.resultId);
    if (!agg) continue;
    agg.type = 'aggregate';
    for (const spawn of main.spawns.values()) {
      if (!spawn.returnId || (w.targets.length && !w.targets.includes(spawn.thread ?? '') && !w.targets.includes(spawn.nickname ?? '') && !w.targets.includes(spawn.path ?? ''))) continue;
      agg.causes = [...(agg.causes ?? []), spawn.returnId];
      out.edge(spawn.returnId, w.resultId, 'return');
    }
  }
  for (const spawn of main.spawns.values()) {
    const e = out.get(spawn.eventId);
    if (e && spawn.lane) e.to = spawn.lane;
  }
}

/** The thread that spawned a child rollout, as its `session_meta` says it (see {@link threadSpawnOf}). */
interface SpawnedBy {
  parent: string;
  nickname: string;
  role?: string;
  depth?: number;
  path?: string;
}

/** The parent of a child rollout (`session_meta.source.subagent.thread_spawn`, see {@link threadSpawnOf}), or undefined. */
function parentThreadOf(meta: Json | undefined): SpawnedBy | undefined {
  const spawn = threadSpawnOf(meta);
  if (!spawn.parent_thread_id) return undefined;
  const nickname = spawn.agent_nickname ?? (spawn.agent_path ? spawn.agent_path.split('/').filter((x) => x !== '').pop() : undefined) ?? str(meta?.id) ?? 'worker';
  return { parent: spawn.parent_thread_id, nickname, role: spawn.agent_role, depth: spawn.depth, path: spawn.agent_path };
}

/** True when the text is a Codex rollout: a `session_meta` record among its first lines (by content). */
export function isCodexText(text: string, fileName = ''): boolean {
  const lines = firstJsonLines(text, 5);
  if (lines.some((l) => isObject(l) && l.type === 'session_meta' && isObject(l.payload))) return true;
  // A rollout whose first line is damaged: the name and the record shape together.
  return /^rollout-.*\.jsonl$/.test(baseName(fileName)) && lines.some((l) => isObject(l) && typeof l.type === 'string' && RECORD_TYPES.has(l.type) && isObject(l.payload) && typeof l.timestamp === 'string');
}

/** The rollout's complete lines read into a kept reader, and what its reading took as known. */
interface CodexState {
  reader: RolloutReader;
  /** Records of the rollout read into `reader`. */
  read: number;
  /** Generation of the rollout's records (see `JsonlParts.generation`). */
  generation: number | undefined;
  startKey: string;
  /** The look-ahead of the complete lines, extended as they come. */
  scan: LookAheadScan;
}

/**
 * A Codex rollout read as it grows (and the child rollouts it spawned). The rollout's complete lines
 * are read once, into a {@link RolloutReader} kept between appends (the open turn, calls waiting
 * for their output, the inputs of the next model output, the compaction waiting for its summary,
 * token counts, ids); each update reads the lines appended since, then finishes a copy of the
 * reader (the pending last line, the child rollouts, the joins). When what the rollout says ahead
 * changed for a record already read (a call declined after its output was read, a worker's spawn
 * named after its call, a prompt repeating an item read as context), or its first line changed,
 * the rollout is read again from its first record; so the result always equals {@link readCodex}
 * on the files' text now. Each line is parsed once (src/trace/jsonl-feed.ts).
 */
export class GrowingCodex implements GrowingImport {
  private readonly records: GrowingRecords;
  private state: CodexState | undefined;
  /** Updates that read on from the state kept, and those that read the rollout again. */
  readonly counts = { wentOn: 0, readAgain: 0 };

  /** @param fileName the rollout; @param files where it and its children are read as they grow. */
  constructor(
    private readonly fileName: string,
    private readonly files: GrowingFiles,
  ) {
    this.records = new GrowingRecords(files, USER_MESSAGE);
  }

  update(): LoadedTrace | undefined {
    const main = this.records.records(this.fileName);
    if (!main) return undefined;
    const complete = main.complete ?? main.records.length;
    const start = startOf(main.records);
    let st = this.state;
    if (st && (main.generation !== st.generation || complete < st.read || start.key !== st.startKey)) st = undefined;
    const scan = st?.scan ?? new LookAheadScan();
    scan.add(main.records, complete);
    const ahead = scan.ahead(main.records, !!main.marked);
    if (st && goesOn(st.reader, ahead)) {
      adopt(st.reader, ahead);
      this.counts.wentOn++;
    } else {
      const problems: Problem[] = [];
      const reader = new RolloutReader({ out: new TraceAssembler(problems), problems, lane: start.ownLane, idPrefix: '', skipped: {}, path: start.ownPath }, ahead);
      st = this.state = { reader, read: 0, generation: main.generation, startKey: start.key, scan };
      this.counts.readAgain++;
    }
    const reader = st.reader;
    for (let i = st.read; i < complete; i++) reader.readRecord(main.records[i]);
    st.read = complete;
    // Finish a copy: the lines' problems first, then those of the reading, as a whole read has them.
    const problems = main.problems.slice();
    for (const p of reader.ctx.problems) problems.push(p);
    const f = reader.fork({ ...reader.ctx, out: reader.ctx.out.fork(problems), problems, skipped: { ...reader.ctx.skipped } });
    for (let i = complete; i < main.records.length; i++) f.readRecord(main.records[i]);
    return finishCodex(f, start, this.fileName, this.files, (path) => this.records.records(path, path));
  }
}

/** True when `ahead` means for the records `reader` read what the look-ahead it read them with meant. */
function goesOn(reader: RolloutReader, ahead: LookAhead): boolean {
  const before = reader.ahead;
  if (ahead.userMessages !== before.userMessages) return false;
  for (const id of ahead.declined) if (!before.declined.has(id) && reader.outputsRead.has(id)) return false;
  for (const [id, s] of ahead.spawns) {
    const old = before.spawns.get(id);
    if ((!old || old.thread !== s.thread || old.nickname !== s.nickname || old.role !== s.role) && reader.calls.has(id)) return false;
  }
  for (const p of ahead.prompts) if (!before.prompts.has(p) && reader.metaUserTexts.has(p)) return false;
  for (const r of ahead.repeatsPrompt) if (!before.repeatsPrompt.has(r) && r.line <= reader.lastLine) return false;
  return true;
}

/** Takes `ahead` into the reader: the spawns in its order (the reader's own for calls it read), then those only the reader made. */
function adopt(reader: RolloutReader, ahead: LookAhead): void {
  const spawns = new Map<string, Spawn>();
  for (const [id, s] of ahead.spawns) spawns.set(id, (reader.calls.has(id) ? reader.spawns.get(id) : undefined) ?? { ...s });
  for (const [id, s] of reader.spawns) if (!spawns.has(id)) spawns.set(id, s);
  reader.spawns = spawns;
  reader.ahead = ahead;
}

/** The Codex rollout format. */
export const codexFormat: TraceFormat = {
  id: 'codex',
  label: 'Codex rollout JSONL',
  detect: (text, fileName) => isCodexText(text, fileName),
  read: (text, fileName, files) => readCodex(text, fileName, files),
  grow: (fileName, files) => new GrowingCodex(fileName, files),
};

registerFormat(codexFormat, true);
