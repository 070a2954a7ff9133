/**
 * A Claude Code session read as its files grow. The session file's complete lines are read once,
 * into an import ({@link ClaudeImport}) that keeps its state between appends: lanes, pending tool
 * calls awaiting their results, the API message whose records are being merged into one model
 * call, the compaction waiting for its summary, the ids taken. Each update reads the lines
 * appended since into that state, then finishes a copy of it ({@link ClaudeImport.fork}): the
 * pending last line, the sub-agent files (new ones appear), and what is done after all records
 * (returns, stops, edges, tokens), so the state itself goes on.
 *
 * What a whole import knows before reading any record (the sub-agent files and their sidecars, the
 * Workflow runs, the agent each Task / Agent call started, the time base: the earliest timestamp of
 * all files) is found again on each
 * update over the records kept (each line is parsed once: src/trace/jsonl-feed.ts); when it
 * changed for what was read (a call's agent became known after its call was read, a sub-agent
 * file appeared, an earlier timestamp came) or the session file was read whole again, the
 * session file's records are read again from the first, so the result always equals
 * `readClaudeCode` on the files' text now.
 *
 * Pure: imports nothing from `vscode`.
 */
import type { GrowingImport } from '../../formats';
import { GrowingRecords, type GrowingFiles } from '../../jsonl-feed';
import type { LoadedTrace } from '../../model';
import { RecordScans } from './links';
import { ClaudeImport } from './session';

/** The import with the session file's complete lines read, and what its reading took as known. */
interface ReadState {
  im: ClaudeImport;
  /** Records of the session file read into `im`. */
  read: number;
  /** Generation of the session file's records (see `JsonlParts.generation`). */
  generation: number | undefined;
  base: number;
  /** The sub-agent files and their agent ids. */
  subAgents: string;
  /** tool_use id of each Task / Agent call -> the agent the links gave it. */
  linked: Map<string, string | undefined>;
}

/** How the updates went: reading on from the state kept, or the session file read again from its first record. */
export interface GrowingClaudeCounts {
  wentOn: number;
  readAgain: number;
}

/** See the file comment. */
export class GrowingClaudeCode implements GrowingImport {
  private readonly records: GrowingRecords;
  /** The calls, agents and earliest time of each file's records, scanned once. */
  private readonly scans = new RecordScans();
  private state: ReadState | undefined;
  readonly counts: GrowingClaudeCounts = { wentOn: 0, readAgain: 0 };

  /** @param fileName the session file; @param files where it and its sub-agent files are read as they grow. */
  constructor(
    private readonly fileName: string,
    private readonly files: GrowingFiles,
  ) {
    this.records = new GrowingRecords(files);
  }

  update(): LoadedTrace | undefined {
    const main = this.records.records(this.fileName);
    if (!main) return undefined;
    const complete = main.complete ?? main.records.length;
    // What a whole import of the files now knows before it reads a record.
    const probe = new ClaudeImport(main, this.fileName, this.files, (path) => this.records.records(path, path));
    probe.scans = this.scans;
    probe.prepare();
    const lineProblems = probe.problems.slice();
    let st = this.state;
    if (st && this.goesOn(st, probe, main.generation, complete)) {
      this.adopt(st, probe);
      this.counts.wentOn++;
    } else {
      probe.problems.length = 0; // the lines' problems are the copy's, each time
      st = this.state = { im: probe, read: 0, generation: main.generation, base: probe.base, subAgents: subAgentsOf(probe), linked: linksOf(probe) };
      this.counts.readAgain++;
    }
    const im = st.im;
    for (let i = st.read; i < complete; i++) im.readRecord(main.records[i], im.mainCursor);
    st.read = complete;
    const f = im.fork(lineProblems);
    f.cutOff.clear();
    for (const p of probe.cutOff) f.cutOff.add(p);
    for (let i = complete; i < main.records.length; i++) f.readRecord(main.records[i], f.mainCursor);
    return f.finishRead();
  }

  /** True when the records read into `st` mean what a whole import of the files now reads them as. */
  private goesOn(st: ReadState, probe: ClaudeImport, generation: number | undefined, complete: number): boolean {
    if (generation !== st.generation || complete < st.read || probe.base !== st.base || subAgentsOf(probe) !== st.subAgents) return false;
    for (const [id, call] of probe.calls) if (st.linked.has(id) && st.linked.get(id) !== call.agentId) return false;
    return st.linked.size <= probe.calls.size;
  }

  /** Takes the probe's view of the files into the state: calls in its order (the state's own for those it has), sub-agent files, records. */
  private adopt(st: ReadState, probe: ClaudeImport): void {
    const im = st.im;
    const calls = [...probe.calls].map(([id, c]) => [id, im.calls.get(id) ?? c] as const);
    im.calls.clear();
    for (const [id, c] of calls) im.calls.set(id, c);
    im.agentOfCall.clear();
    for (const [id, a] of probe.agentOfCall) im.agentOfCall.set(id, a);
    im.subFiles.length = 0;
    im.subFiles.push(...probe.subFiles);
    im.workflowRuns.clear();
    for (const [id, run] of probe.workflowRuns) im.workflowRuns.set(id, run);
    Object.assign(im.main, { records: probe.main.records, complete: probe.main.complete, generation: probe.main.generation });
    st.linked = linksOf(probe);
  }
}

/** The sub-agent files, what their sidecars say and the Workflow runs they belong to (with the call that launched each): a change reads the session again. */
function subAgentsOf(im: ClaudeImport): string {
  const runs = [...im.workflowRuns.values()].map((r) => `${r.runId}\u0000${r.call ?? ''}\u0000${r.name ?? ''}\u0000${r.taskId ?? ''}`);
  return [...im.subFiles.map((f) => `${f.path}\u0000${f.agentId}\u0000${f.workflowRun ?? ''}\u0000${f.meta ? JSON.stringify(f.meta) : ''}`), ...runs].join('\n');
}

function linksOf(im: ClaudeImport): Map<string, string | undefined> {
  return new Map([...im.calls].map(([id, c]) => [id, c.agentId]));
}
