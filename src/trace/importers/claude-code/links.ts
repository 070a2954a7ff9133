/**
 * The passes a Claude Code import makes over every record before it reads any (session.ts
 * `link`, `earliestTimestamp`): the Task / Agent calls and the agent each started, and the earliest
 * timestamp. Each file's part is found on its own ({@link FileScan}) and the parts are merged in
 * file order, so a growing import ({@link RecordScans}) scans each record once and merges again.
 *
 * Pure: imports nothing from `vscode`.
 */
import { isObject, parseTimestamp, str, type JsonlRecord } from '../jsonl-records';
import { AGENT_TOOLS, contentText, WORKFLOW_TOOL, type Json, type SourceFile } from './model';

/** What one file's records say before they are read. */
export interface FileScan {
  /** Task / Agent calls by tool_use id, in order of first use; the input of the last use. */
  calls: Map<string, Json>;
  /** tool_use id -> the agent its result or progress records name (the first one). */
  agentOf: Map<string, string>;
  /** Earliest timestamp (epoch ms), Infinity when none. */
  earliest: number;
  /** tool_use ids of Workflow calls. */
  workflowCalls: Set<string>;
  /** tool_use id -> the run id (`wf_…`) and background task id its result names (the first result naming one). */
  launches: Map<string, { runId?: string; taskId?: string }>;
}

/** An empty scan. */
export function emptyScan(): FileScan {
  return { calls: new Map(), agentOf: new Map(), earliest: Infinity, workflowCalls: new Set(), launches: new Map() };
}

/** Adds records `[from, to)` of a file to its scan `into`. */
export function scanRecords(records: readonly JsonlRecord[], from: number, to: number, into: FileScan): FileScan {
  for (let i = from; i < to; i++) {
    const v = records[i].value;
    const ms = parseTimestamp(v.timestamp);
    if (ms !== undefined && ms < into.earliest) into.earliest = ms;
    const message = isObject(v.message) ? v.message : undefined;
    if (v.type === 'assistant' && message && Array.isArray(message.content)) {
      for (const b of message.content) {
        if (!isObject(b) || b.type !== 'tool_use' || typeof b.id !== 'string') continue;
        if (AGENT_TOOLS.has(str(b.name) ?? '') && isObject(b.input)) into.calls.set(b.id, b.input);
        else if (b.name === WORKFLOW_TOOL) into.workflowCalls.add(b.id);
      }
    } else if (v.type === 'user' && message) {
      if (Array.isArray(message.content)) {
        for (const b of message.content) {
          if (!isObject(b) || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
          const result = isObject(v.toolUseResult) ? v.toolUseResult : undefined;
          const text = contentText(b.content);
          if (!into.launches.has(b.tool_use_id)) {
            const runId = str(result?.runId) ?? /\b(wf_[\w-]+)/.exec(text)?.[1];
            const taskId = str(result?.taskId);
            if (runId || taskId) into.launches.set(b.tool_use_id, { ...(runId ? { runId } : {}), ...(taskId ? { taskId } : {}) });
          }
          if (into.agentOf.has(b.tool_use_id)) continue;
          const agentId = str(result?.agentId) ?? /\bagent_?[iI]d: ([\w@.-]+)/.exec(text)?.[1];
          if (agentId) into.agentOf.set(b.tool_use_id, agentId);
        }
      }
    } else if (v.type === 'progress' && isObject(v.data) && v.data.type === 'agent_progress') {
      const agentId = str(v.data.agentId);
      const parent = str(v.parentToolUseID);
      if (agentId && parent && !into.agentOf.has(parent)) into.agentOf.set(parent, agentId);
    }
  }
  return into;
}

/**
 * Scans kept between the updates of a growing import: per file (by path and generation), the scan
 * of its complete lines' records, extended as lines are appended; the pending last line's record
 * is scanned each time on its own.
 */
export class RecordScans {
  private readonly kept = new Map<string, { generation: number | undefined; scanned: number; scan: FileScan }>();

  /** The scans of `f`, in order: its complete lines' (kept), then what its last line adds (may be empty). */
  of(f: SourceFile): FileScan[] {
    const key = f.path ?? '';
    const complete = f.complete ?? f.records.length;
    let k = this.kept.get(key);
    if (!k || k.generation !== f.generation || k.scanned > complete) this.kept.set(key, (k = { generation: f.generation, scanned: 0, scan: emptyScan() }));
    scanRecords(f.records, k.scanned, complete, k.scan);
    k.scanned = complete;
    return complete < f.records.length ? [k.scan, scanRecords(f.records, complete, f.records.length, emptyScan())] : [k.scan];
  }
}
