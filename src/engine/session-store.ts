/**
 * The trace sessions where they are computed (the engine's worker thread, or the calling thread for
 * the CLI and unit tests): per session key the latest snapshot (parse + analysis) and the files it
 * was read from; loads that a newer load or a cancel supersedes stop at the next phase (but the
 * analysis of a followed file, which only a cancel stops, and which takes the newer load's read
 * between its phases so that the views show the newest events meanwhile: readAhead); the
 * editor's and the graph's questions are answered here, with small answers. Pure: no `vscode`.
 */
import * as path from 'node:path';
import type { FileMarks, MarkOptions } from './event-marks';
import { traceOfOpenRequest } from './open-target';
import { detectFormat } from '../trace/formats';
import '../trace/importers';
import { chooseMapping, type MappingSource } from '../trace/mapping-choice';
import type { LoadedTrace, Position } from '../trace/model';
import type { Analysis, AnalysisPhase } from '../analysis';
import { fitWindowRequest, heldViewRequest } from '../shared/fit';
import { packOverview } from '../shared/overview-columns';
import { findEvents, graphEvent, graphOverview, graphOverviewBytes, graphOverviewDelta, graphWindow, prepareGraph, snapshotStamp, type OverviewSent } from './graph-window';
import { mappingReport, mappingSource } from './mapping-sources';
import { eventMarks } from './marks';
import { recordLabels } from './record-labels';
import { eventString, longStringAt } from './long-strings';
import { codeLenses, eventAtPosition, eventContent, eventInfo, eventPlace, inspect, outline, promptUsers, sourcePrompt } from './queries';
import type { LineSpan } from './query-types';
import { setAsideLongContent } from './long-content';
import { labelTarget, newLabelLine, sessionLabels } from './human-labels';
import type { NewLabel } from '../shared/label-kinds';
import { compareView } from './compare-view';
import type { CompareModel } from '../shared/compare-protocol';
import { SessionFiles, type FileRead } from './session-input';
import { megabytes, shareOf } from '../shared/part-words';
import { analysedSnapshot, appendedSnapshot, readSnapshot, snapshotAnalysis, type TraceSnapshot } from './snapshot';
import { MessageTurns } from './message-turns';
import { summarize, type SessionSummary } from './summary';
import type { EngineCalls, LoadProgress, LoadRequest, MappingInput, MappingReport } from './worker-protocol';
import type { GraphNode, GraphOverview, GraphWindow, WindowRequest } from '../shared/protocol';
import { runChatTool, type ChatToolAnswer, type ToolView } from './chat-tools';
import { DiskTraces, toolTraces } from './tool-traces';
import { FollowAnalysis } from '../analysis/follow';
import { followLayout, isFollowed } from './structure-growth';
import type { OverviewDelta } from '../shared/overview-delta';

/** One session: its files, its latest snapshot and that snapshot's summary. */
interface Session {
  files: SessionFiles;
  snapshot?: TraceSnapshot;
  summary?: SessionSummary;
  /** True when the snapshot was read from the file on disk (not from a text the host sent). */
  fromDisk: boolean;
  /** Marks of the snapshot's files for one set of options. */
  marks?: { snapshot: TraceSnapshot; options: string; files: Map<string, FileMarks> };
  /** The analysis that follows the file once it was seen growing (src/analysis/follow.ts), for one stated outcome. */
  follow?: { outcome: string | undefined; analysis: FollowAnalysis };
  /** A followed file's overview last answered as bytes: the next answer may be a delta against it (src/shared/overview-delta.ts). */
  sent?: OverviewSent;
  /**
   * A newer load's read taken between the phases of the followed analysis running now
   * ({@link SessionStore.readAhead}): its snapshot as read is the session's; when the running
   * analysis ends, that snapshot takes its findings.
   */
  ahead?: { id: number; stage: ReadStage; report: (p: LoadProgress) => void };
}

/** What a load read: the trace, how, and its snapshot as read (the session's while a large trace's analysis runs). */
interface ReadStage {
  read: { loaded: LoadedTrace; grew: boolean; shared?: boolean };
  /** True when read from the file on disk (not from a text the host sent). */
  fromDisk: boolean;
  first: TraceSnapshot;
  /** True when the trace is large enough to answer as read first (its snapshot is then the session's). */
  progressive: boolean;
  /** e.g. `analysing 1,000,003 events`. */
  analysing: string;
}

/** A load queued behind the session's running one; a followed analysis may take its read early ({@link SessionStore.readAhead}). */
interface WaitingLoad {
  id: number;
  request: LoadRequest;
  report: (p: LoadProgress) => void;
  /** What its read gave when taken early: the stage, `unchanged`, or the error it threw (the load's own, thrown when it runs). */
  taken?: ReadStage | 'unchanged' | { error: unknown };
}

/** Thrown at a phase boundary when the load is no longer wanted. */
const SUPERSEDED = Symbol('superseded');

/** Lets messages in (a newer load, a cancel) between the phases of a load, when the store is given no turns of its own: no answer is ever pending in them. */
const ownTurns = new MessageTurns();

/** A followed trace's analysis of what was read, in phases (FollowAnalysis.steps): the analysis, or `{ error }` with why it failed (the trace still shows). */
function* followedSteps(follow: FollowAnalysis, loaded: LoadedTrace, inProgress: boolean): Generator<AnalysisPhase, Analysis | { error: string }, void> {
  try {
    return yield* follow.steps(loaded, inProgress);
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Traces of this many events or more open progressively: the trace as read answers first (its graph
 * draws, its queries answer) and the analysis follows in phases, letting the graph's requests in
 * between. Below it the analysis takes under about 0.3 s (169k events/s measured at 1M), less than
 * a second drawing of the graph would cost: one answer, analysed.
 */
export const PROGRESSIVE_FROM_EVENTS = 50_000;

/**
 * How long (ms) a large followed trace's read waits for the graph view's request before its
 * analysis goes on (the host asks a round trip after it hears of the read; the analysis's next
 * phase would keep the request waiting up to a second at 1M events).
 */
export const GRAPH_ASKS_WITHIN_MS = 100;

/** Sessions by key, with everything {@link EngineCalls} asks of them. */
export class SessionStore implements EngineCalls {
  private readonly sessions = new Map<string, Session>();
  private mappings: MappingSource[] = [];
  /** Trace files the language model tools name that no session has open. */
  private readonly disk = new DiskTraces();
  /** Per key, the id of the load wanted now (a newer load or a cancel changes it). */
  private readonly wanted = new Map<string, number>();
  /** Per key, the load running (loads of one session run one after the other). */
  private readonly running = new Map<string, Promise<unknown>>();
  /** Per key, the newest load queued behind the running one. */
  private readonly waiting = new Map<string, WaitingLoad>();
  /** Per key, what a read waiting for the graph's request calls when it came ({@link graphAsked}). */
  private readonly graphWaits = new Map<string, () => void>();

  /**
   * @param options.streamFromBytes otrace JSONL files from this size on are streamed from disk (default 64 MB: STREAM_FROM_BYTES in session-input.ts; tests set it low).
   * @param options.progressiveFromEvents traces of this many events or more open progressively (default {@link PROGRESSIVE_FROM_EVENTS}; tests set it low).
   * @param options.yieldToMessages what a load awaits between its phases so that messages get in and out (default: one
   *   turn of the event loop; the engine's process also waits there until its answers are written: src/engine/message-turns.ts).
   * @param options.firstPartBytes / partBytes a streamed file opened for the first time shows its first this many bytes,
   *   then is read on this many at a time (defaults FIRST_PART_BYTES and PART_BYTES in session-input.ts; tests set them low).
   * @param options.pauseAfterMs a long phase of an analysis pauses at its next seam after this many ms (default 40:
   *   src/analysis/pauses.ts; tests set 0, a pause at every seam).
   */
  constructor(
    private readonly options: {
      streamFromBytes?: number;
      progressiveFromEvents?: number;
      yieldToMessages?: () => Promise<void>;
      firstPartBytes?: number;
      partBytes?: number;
      pauseAfterMs?: number;
    } = {},
  ) {}

  private yieldToMessages(): Promise<void> {
    return this.options.yieldToMessages ? this.options.yieldToMessages() : ownTurns.turn();
  }

  configure(inputs: MappingInput[]): MappingReport[] {
    this.mappings = inputs.map(mappingSource);
    return this.mappings.map(mappingReport);
  }

  detect(head: string, fileName: string, byContent: boolean): boolean {
    if (this.mappings.length && !fileName.endsWith('.otrace-map.json') && chooseMapping(this.mappings, head, fileName)) return true;
    return byContent && detectFormat(head, fileName) !== undefined;
  }

  openRequest(uriPath: string, query: string): { trace: string } | { error: string } {
    try {
      return { trace: traceOfOpenRequest(uriPath, query) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  /**
   * Loads one version of a session. Loads of one key run in turn; each one stops at its next
   * phase once a newer load of the key or a {@link cancel} came, and then answers undefined.
   * @param id the load's id (increasing); @param report receives each phase as it starts.
   * @returns the summary (the previous one, with this version, when nothing on disk changed).
   * @throws Error when the trace file cannot be read from disk.
   */
  load(request: LoadRequest, id: number, report: (p: LoadProgress) => void = () => undefined): Promise<SessionSummary | undefined> {
    this.wanted.set(request.key, id);
    const before = this.running.get(request.key);
    if (before) this.waiting.set(request.key, { id, request, report });
    else this.waiting.delete(request.key);
    const run = (before ?? Promise.resolve()).then(
      () => this.run(request, id, report),
      () => this.run(request, id, report),
    );
    this.running.set(request.key, run);
    void run.finally(() => {
      if (this.running.get(request.key) === run) this.running.delete(request.key);
    }).catch(() => undefined);
    return run;
  }

  /** Stops the session's running load at its next phase (it answers undefined). */
  cancel(key: string): void {
    this.wanted.set(key, -1);
  }

  /** Forgets a session (its file was closed): its snapshot, files and any running load. */
  release(key: string): void {
    this.cancel(key);
    this.waiting.delete(key);
    this.graphWaits.get(key)?.();
    // between two phases of a running analysis at most (this runs on the same thread): its next pause ends it, and its index then gives nothing back
    this.sessions.get(key)?.follow?.analysis.release();
    this.sessions.delete(key);
  }

  private async run(request: LoadRequest, id: number, report: (p: LoadProgress) => void): Promise<SessionSummary | undefined> {
    const { key } = request;
    const step = async () => {
      await this.yieldToMessages();
      if (this.wanted.get(key) !== id) throw SUPERSEDED;
    };
    try {
      await this.yieldToMessages();
      let session = this.sessions.get(key);
      if (!session) this.sessions.set(key, (session = { files: new SessionFiles(this.options.streamFromBytes, this.options.firstPartBytes, this.options.partBytes), fromDisk: false }));
      // a read the followed analysis before this load took between its phases (readAhead), else this load's own
      const early = this.waiting.get(key);
      if (early?.id === id) this.waiting.delete(key);
      const ahead = session.ahead?.id === id ? session.ahead.stage : undefined;
      // A read taken ahead and shown is analysed as a followed analysis is, to its end though a newer load came (superseded
      // before its analysis, it would stay shown as pending should the newer load fail; a cancel ends it as cancelled in its
      // first pause), unless a newer read took its place as the session's (session.ahead is then that one's).
      if (!ahead && this.wanted.get(key) !== id) throw SUPERSEDED;
      const taken = ahead ?? (early?.id === id ? early.taken : undefined);
      if (typeof taken === 'object' && 'error' in taken) throw taken.error;
      const stage = taken ?? (await this.readStage(session, request, report, step));
      if (stage === 'unchanged') {
        session.snapshot!.version = request.version;
        // the same snapshot, with how it was made (grew): a host that dropped its first answer (a newer request was on its way) learns it here
        session.summary = { ...session.summary!, version: request.version, bytesRead: session.files.bytesRead };
        return session.summary;
      }
      if (stage === undefined) return undefined; // released meanwhile
      const { read, fromDisk, progressive, analysing } = stage;
      // this load's analysis starts: a read taken ahead of the one before is this one's (or a superseded load's, whose snapshot this one's replaced)
      session.ahead = undefined;
      // A file seen growing on disk is followed: its analysis takes in what was appended (src/analysis/follow.ts).
      const follow = this.followOf(session, fromDisk && (read.grew || session.follow !== undefined), request.outcome);
      // A large one's in phases (the graph's requests get in), and run to its end though a newer load came: an
      // append abandoned for the next one would leave a trace written faster than it is analysed without findings.
      // The newer load's read is taken between the phases meanwhile (readAhead): the views show the new events at once.
      // (A small one's takes a fraction of a second: a newer load ends it, as any other load.)
      const cancelled = () => this.wanted.get(key) === -1 || this.sessions.get(key) !== session;
      const pause =
        follow && progressive
          ? async () => {
              await this.yieldToMessages();
              if (cancelled()) throw SUPERSEDED;
              await this.readAhead(key, session);
            }
          : step;
      const ended = (phase: AnalysisPhase) => {
        // (a pause inside a phase: messages get in, nothing to report)
        if (progressive && phase !== 'pause') report({ phase: 'analyze', message: `${analysing}: ${phase} done` });
      };
      // lines were appended since the last read: the run is being written, its end is not judged yet (StopOptions.inProgress)
      const inProgress = request.inProgress ?? (fromDisk && read.grew);
      const result = await this.analyse(
        follow ? followedSteps(follow, read.loaded, inProgress) : snapshotAnalysis(stage.first, request.outcome, inProgress, this.options.pauseAfterMs),
        progressive ? pause : undefined,
        () => this.wanted.get(key) === -1 && this.sessions.get(key) === session,
        ended,
      );
      if (result === undefined) return undefined;
      if (follow && progressive) {
        // one more turn before the analysed snapshot (its findings' lookup and run summary: 0.5-1 s at 1M events) for the messages and a newer read
        await this.yieldToMessages();
        if (this.sessions.get(key) === session && this.wanted.get(key) !== -1) await this.readAhead(key, session);
      }
      const snapshot = analysedSnapshot(stage.first, result, follow && ((loaded, analysis) => follow.summary(loaded, analysis)));
      const stopped = 'error' in result && result.cancelled === true;
      // a cancel ends the analysis as cancelled: its trace is shown (the read taken ahead is read again by the next load: its files were not kept)
      if (stopped) session.ahead = undefined;
      if (session.ahead && this.sessions.get(key) === session) {
        // a newer read is shown: it takes this analysis's findings, and this load is superseded by it
        await this.showAhead(session, snapshot);
        return undefined;
      }
      // Long content is read from disk when asked, unless a reader that follows the file keeps the events (their next analysis needs it).
      if (fromDisk && !read.shared) setAsideLongContent(snapshot);
      if (!stopped) await pause();
      report({ phase: 'index', message: 'indexing' });
      const made = summarize(snapshot, snapshotStamp(snapshot), session.files.bytesRead, read.grew);
      const summary = follow ? { ...made, analysedAs: follow.last.how } : made;
      if (this.sessions.get(key) !== session) return undefined; // released meanwhile
      if (session.ahead) {
        // a newer read came in the pause above
        await this.showAhead(session, snapshot);
        return undefined;
      }
      Object.assign(session, { snapshot, summary, fromDisk, marks: undefined });
      if (!stopped) void session.files.kept();
      return summary;
    } catch (err) {
      // A cancel or a failure of the newest load: what it leaves shown no longer waits for a read or an analysis (a large file's
      // first part, or a trace as read whose analysis an earlier load ended). A newer load that supersedes this one shows its own.
      const session = this.sessions.get(key);
      const wanted = this.wanted.get(key);
      if (session && (wanted === -1 || (wanted === id && err !== SUPERSEDED))) this.shownStopped(session, report, err === SUPERSEDED ? 'cancelled' : (err as Error).message);
      if (err === SUPERSEDED) return undefined;
      throw err;
    }
  }

  /**
   * Reads a load's trace and, for a large one, makes its snapshot as read the session's and
   * reports it (the graph and the queries answer it while the analysis runs).
   * @param between awaited after the read (a newer load or a cancel then ends this one: it throws
   *   SUPERSEDED); none when the read is taken between another load's phases.
   * @returns the stage, `unchanged` when nothing changed on disk, undefined when the session was released meanwhile.
   * @throws Error when the trace file cannot be read from disk.
   */
  private async readStage(session: Session, request: LoadRequest, report: (p: LoadProgress) => void, between?: () => Promise<void>): Promise<ReadStage | 'unchanged' | undefined> {
    const { key } = request;
    report({ phase: 'read', message: `reading ${path.basename(request.path)}` });
    const fromDisk = request.text === undefined;
    // a large file opened for the first time is read in parts: its first part shows while the rest is read
    let read: FileRead | 'unchanged' | undefined = session.files.read(request, this.mappings, !!session.snapshot && session.fromDisk && fromDisk && !request.force, !session.snapshot);
    if (read === 'unchanged') return 'unchanged';
    if (read.part) read = await this.readInParts(session, request, read, report, between);
    if (read === undefined) return undefined; // released meanwhile
    if (between) await between();
    // a file seen growing (or read again by the reader that follows it): its graph's layout extends the last one on the next append (src/engine/structure-growth.ts)
    if ((read.grew || read.shared) && fromDisk) followLayout(read.loaded);
    const events = read.loaded.trace.events.length;
    const analysing = `analysing ${events.toLocaleString('en-US')} events`;
    const progressive = events >= (this.options.progressiveFromEvents ?? PROGRESSIVE_FROM_EVENTS);
    // lines appended to a large trace, or a followed one read again (its events those of the reader that follows it, e.g. once its
    // file is no longer written): the trace as read shows the last analysis's findings while its own runs (no decoration blinks out)
    const first = progressive && (read.grew || read.shared) && fromDisk ? appendedSnapshot(key, request.version, request.path, read.loaded, session.snapshot) : readSnapshot(key, request.version, request.path, read.loaded);
    // (a large file's first part shown: the whole trace as read replaces it now, however few its events)
    if (!progressive && !session.snapshot?.reading) {
      report({ phase: 'analyze', message: analysing });
      return { read, fromDisk, first, progressive, analysing };
    }
    // The trace as read answers now (graph, queries) while its analysis runs; the load's files are kept only with the analysis (a newer load reads them again).
    if (this.sessions.get(key) !== session) return undefined; // released meanwhile
    const readSummary = summarize(first, snapshotStamp(first), session.files.bytesRead, read.grew);
    Object.assign(session, { snapshot: first, summary: readSummary, fromDisk, marks: undefined });
    report({ phase: 'analyze', message: analysing, read: readSummary });
    // the report on its way before the graph is laid out: a child process's answers leave at a yield (message-turns.ts),
    // and the host's request for the overview then came one analysis phase late (1.4 s after an append at 1M, not 0.3)
    await this.yieldToMessages();
    prepareGraph(first); // the overview the host asks for next is ready when its request gets in
    if (session.sent) await this.graphAsked(key);
    return { read, fromDisk, first, progressive, analysing };
  }

  /**
   * A large file's first part was read: its trace answers now (the graph draws the start of the run,
   * the queries answer) while the rest is read, PART_BYTES (session-input.ts) at a time with a turn between
   * parts (the graph's requests answered, a newer load or a cancel seen).
   * @param between awaited between parts (throws SUPERSEDED to end the load); else a turn.
   * @returns the file read to its end, or undefined when the session was released meanwhile.
   * @throws Error when the file can no longer be read; SUPERSEDED through `between`.
   */
  private async readInParts(session: Session, request: LoadRequest, first: FileRead, report: (p: LoadProgress) => void, between?: () => Promise<void>): Promise<FileRead | undefined> {
    const { key } = request;
    const name = path.basename(request.path);
    let read = first;
    if (read.loaded.trace.events.length > 0 && this.sessions.get(key) === session) {
      const part: TraceSnapshot = { ...readSnapshot(key, request.version, request.path, read.loaded), reading: read.part };
      const summary = summarize(part, snapshotStamp(part), session.files.bytesRead, false);
      Object.assign(session, { snapshot: part, summary, fromDisk: true, marks: undefined });
      report({ phase: 'read', message: readingMessage(name, read.part!), read: summary });
      // the report on its way before the graph is laid out (as for a trace as read, readStage)
      await this.yieldToMessages();
      prepareGraph(part);
    }
    while (read.part) {
      // (cancelled, or the file could no longer be read: the load's catch shows the part as where the read stopped)
      await (between ?? (() => this.yieldToMessages()))();
      if (this.sessions.get(key) !== session) return undefined;
      read = session.files.readOn();
      if (read.part) report({ phase: 'read', message: readingMessage(name, read.part), part: read.part });
    }
    return read;
  }

  /**
   * The newest load was cancelled or failed while its session shows a snapshot that waits: a large
   * file's first part being read, or a trace as read whose analysis a load before this one ended
   * (superseded by it). That snapshot stays shown, no longer pending (the header, the graph and the
   * status bar say why; the next load reads on, or reads the file again). Reported so that the views
   * say so. @param why `cancelled`, or the failure's message.
   */
  private shownStopped(session: Session, report: (p: LoadProgress) => void, why: string): void {
    const shown = session.snapshot;
    if (!shown || this.sessions.get(shown.key) !== session || !(shown.reading ? !shown.reading.stopped : shown.analysisPending)) return;
    const { analysisPending: _pending, ...rest } = shown;
    const cancelled = why === 'cancelled';
    const said = shown.reading ? (cancelled ? 'the read was cancelled' : `the read failed: ${why}`) : cancelled ? 'the newer load was cancelled' : `reading the file again failed: ${why}`;
    const stopped: TraceSnapshot = shown.reading
      ? { ...rest, reading: { ...shown.reading, stopped: true }, analysisError: `${said}: the first part of the file is shown, not analysed` }
      : { ...rest, analysisError: `${said}: the trace as read is shown, not analysed` };
    const summary = summarize(stopped, snapshotStamp(stopped), session.files.bytesRead, false);
    Object.assign(session, { snapshot: stopped, summary, marks: undefined });
    report({ phase: 'read', message: said, read: summary });
  }

  /**
   * Between two phases of a followed analysis: reads the newest load queued behind it, when that
   * load reads the file on disk (an append, as a running agent writes it), so that the views show
   * the new events now, with the last findings, rather than after the analysis (seconds at 1M
   * events). The queued load then analyses what it read when its turn comes. A read that fails is
   * that load's failure, thrown when it runs.
   */
  private async readAhead(key: string, session: Session): Promise<void> {
    const next = this.waiting.get(key);
    if (!next || next.taken || this.wanted.get(key) !== next.id || next.request.text !== undefined || next.request.force) return;
    try {
      next.taken = (await this.readStage(session, next.request, next.report)) ?? { error: SUPERSEDED };
    } catch (err) {
      next.taken = { error: err };
      return;
    }
    if (typeof next.taken === 'object' && 'first' in next.taken && next.taken.progressive && session.snapshot === next.taken.first) session.ahead = { id: next.id, stage: next.taken, report: next.report };
  }

  /**
   * A followed analysis ended while a newer read is shown ({@link Session.ahead}): that read's
   * snapshot takes the analysis's findings (for the events both read) and is reported again, so
   * that every analysis that ran reaches the views. @param analysed the ended analysis's snapshot.
   */
  private async showAhead(session: Session, analysed: TraceSnapshot): Promise<void> {
    const { stage, report } = session.ahead!;
    const { first, read } = stage;
    const shown = appendedSnapshot(first.key, first.version, first.path, read.loaded, analysed);
    stage.first = shown;
    const readSummary = summarize(shown, snapshotStamp(shown), session.files.bytesRead, read.grew);
    Object.assign(session, { snapshot: shown, summary: readSummary, marks: undefined });
    report({ phase: 'analyze', message: stage.analysing, read: readSummary });
    await this.yieldToMessages();
    prepareGraph(shown);
    if (session.sent) await this.graphAsked(first.key);
  }

  /**
   * Waits until the graph view that follows a session asked for its overview (the snapshot just
   * reported), at most {@link GRAPH_ASKS_WITHIN_MS}, then until the answer left: the host asks as
   * soon as it hears of a read, a round trip later, and the analysis's next phase (up to a second
   * at 1M events) would keep the request waiting.
   */
  private async graphAsked(key: string): Promise<void> {
    this.graphWaits.get(key)?.();
    await new Promise<void>((resolve) => {
      const asked = () => {
        clearTimeout(timer);
        if (this.graphWaits.get(key) === asked) this.graphWaits.delete(key);
        resolve();
      };
      const timer = setTimeout(asked, GRAPH_ASKS_WITHIN_MS);
      this.graphWaits.set(key, asked);
    });
    await this.yieldToMessages();
  }

  /**
   * Runs an analysis in phases (`steps`); with `between`, awaits it after each phase (messages get
   * in: graph windows are answered, a newer load or a cancel is seen: `between` throws SUPERSEDED to end it).
   * @param cancelled true when the load was cancelled with its read snapshot still the session's:
   *   the analysis then ends as failed, `cancelled` (the trace stays shown, without findings).
   * @param ended called with each phase's name as it ends (before `between`).
   * @returns the analysis, `{ error }` when it failed or was cancelled, or undefined when a newer load superseded it.
   * @throws the {@link SUPERSEDED} symbol only through `between`, caught here.
   */
  private async analyse(
    steps: Generator<AnalysisPhase, Analysis | { error: string }, void>,
    between: (() => Promise<void>) | undefined,
    cancelled: () => boolean,
    ended: (phase: AnalysisPhase) => void = () => undefined,
  ): Promise<Analysis | { error: string; cancelled?: true } | undefined> {
    try {
      // Messages first: the graph's request for the trace as read (sent when the host heard of it) is answered before the first phase, which takes seconds at 1M events.
      if (between) await between();
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done) return step.value;
        ended(step.value);
        if (between) await between();
      }
    } catch (err) {
      if (err !== SUPERSEDED) throw err;
      return cancelled() ? { error: 'the analysis was cancelled', cancelled: true } : undefined;
    } finally {
      steps.return({ error: 'ended' }); // a superseded analysis lets go of its index now
    }
  }

  /**
   * The analysis that follows a session's file, kept from load to load once the file was seen
   * growing from disk (`follows`); undefined (and forgotten) otherwise: a file read from a
   * document's text, or never seen growing, is analysed whole (no per-event results kept).
   */
  private followOf(session: Session, follows: boolean, outcome: 'success' | 'failure' | undefined): FollowAnalysis | undefined {
    if (!follows) {
      session.follow?.analysis.release();
      session.follow = undefined;
    }
    else if (!session.follow || session.follow.outcome !== outcome) {
      session.follow?.analysis.release();
      const pauses = this.options.pauseAfterMs !== undefined ? { pauseAfterMs: this.options.pauseAfterMs } : {};
      session.follow = { outcome, analysis: new FollowAnalysis({ ...(outcome ? { outcome } : {}), ...pauses }) };
    }
    return session.follow?.analysis;
  }

  /** The latest snapshot of a session when its stamp is `stamp`. */
  private at(key: string, stamp: number): TraceSnapshot | undefined {
    const s = this.sessions.get(key)?.snapshot;
    return s && snapshotStamp(s) === stamp ? s : undefined;
  }

  /** `answer` of the session's latest snapshot when its stamp is `stamp`, else undefined. */
  private on<T>(key: string, stamp: number, answer: (s: TraceSnapshot) => T): T | undefined {
    const s = this.at(key, stamp);
    return s && answer(s);
  }

  eventAt(key: string, stamp: number, file: string, at: Position, keep?: number): number | undefined {
    return this.on(key, stamp, (s) => eventAtPosition(s, file, at, keep));
  }

  eventPlace(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => eventPlace(s, index));
  }

  eventInfo(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => eventInfo(s, index));
  }

  labelTarget(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => labelTarget(s, index));
  }

  newLabelLine(key: string, stamp: number, index: number, label: NewLabel, who: { author: string; time: string }) {
    return this.on(key, stamp, (s) => newLabelLine(s, index, label, who));
  }

  sessionLabels(key: string, stamp: number, sidecarText: string) {
    return this.on(key, stamp, (s) => sessionLabels(s, sidecarText));
  }

  eventContent(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => eventContent(s, index));
  }

  fileMarks(key: string, stamp: number, file: string, options: MarkOptions): FileMarks | undefined {
    const s = this.at(key, stamp);
    const session = this.sessions.get(key);
    if (!s || !session) return undefined;
    const optionsKey = `${options.stops} ${options.credit} ${options.loops}`;
    if (session.marks?.snapshot !== s || session.marks.options !== optionsKey) session.marks = { snapshot: s, options: optionsKey, files: eventMarks(s, options) };
    return session.marks.files.get(file) ?? { marks: [], loopRanges: [] };
  }

  recordLabels(key: string, stamp: number, file: string, lines: { start: number; end: number }[]) {
    return this.on(key, stamp, (s) => recordLabels(s, file, lines));
  }

  eventString(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => eventString(s, index));
  }

  longStringAt(key: string, stamp: number, file: string, at: Position, view?: 'json') {
    return this.on(key, stamp, (s) => longStringAt(s, file, at, view));
  }

  codeLenses(key: string, stamp: number, file: string, lines?: readonly LineSpan[]) {
    return this.on(key, stamp, (s) => codeLenses(s, file, lines));
  }

  outline(key: string, stamp: number, file: string, maxEvents?: number) {
    return this.on(key, stamp, (s) => outline(s, file, maxEvents));
  }

  sourcePrompt(key: string, stamp: number, index: number) {
    return this.on(key, stamp, (s) => sourcePrompt(s, index));
  }

  promptUsers(key: string, stamp: number, absPath: string) {
    return this.on(key, stamp, (s) => promptUsers(s, absPath));
  }

  filesChanged(key: string): boolean {
    const session = this.sessions.get(key);
    return !!session?.snapshot && session.files.changedOnDisk(session.snapshot.path);
  }

  inspect(key: string, stamp: number, max: number) {
    return this.on(key, stamp, (s) => inspect(s, max));
  }

  graphOverview(key: string, title: string): GraphOverview | undefined {
    const s = this.sessions.get(key)?.snapshot;
    return s && graphOverview(s, title);
  }

  graphOverviewBytes(key: string, title: string, fitWidth?: number): { json: Uint8Array; columns: Uint8Array; first?: GraphWindow } | undefined {
    const s = this.sessions.get(key)?.snapshot;
    if (!s) return undefined;
    const { json, columns, overview } = graphOverviewBytes(s, title);
    const first = fitWidth === undefined ? undefined : graphWindow(s, fitWindowRequest(overview, fitWidth));
    return { json, columns, ...(first ? { first } : {}) };
  }

  graphOverviewUpdate(key: string, title: string, fitWidth: number | undefined, held: number | undefined, view?: WindowRequest): ({ json: Uint8Array; columns: Uint8Array } | { delta: OverviewDelta }) & { stamp: number; first?: GraphWindow } | undefined {
    const session = this.sessions.get(key);
    const s = session?.snapshot;
    if (!session || !s) return undefined;
    this.graphWaits.get(key)?.(); // (the read waiting for it goes on once this answer left)
    const before = session.sent?.overview.stamp === held ? session.sent?.overview : undefined;
    // the page's own view when it said which (held over a new snapshot of the same file), else the whole axis at Fit
    const firstOf = (overview: Pick<GraphOverview, 'axis' | 'stamp' | 'totalEvents'>) => {
      if (view && held !== undefined && view.stamp === held) return graphWindow(s, heldViewRequest(view, before, overview));
      return fitWidth === undefined ? undefined : graphWindow(s, fitWindowRequest(overview, fitWidth));
    };
    if (isFollowed(s.loaded)) {
      // a file seen growing: what is answered is kept, the next answer may be a delta against it
      const last = session.sent;
      const { delta, sent } = last && last.overview.stamp === held ? graphOverviewDelta(s, title, last) : graphOverviewDelta(s, title, undefined);
      session.sent = sent;
      const first = firstOf(sent.overview);
      const body = delta ? { delta } : packOverview(sent.overview);
      // the followed readers' copies of their lists waited for this answer (src/engine/session-input.ts `kept`)
      session.files.viewsAnswered();
      return { ...body, stamp: sent.overview.stamp, ...(first ? { first } : {}) };
    }
    session.sent = undefined;
    const { json, columns, overview } = graphOverviewBytes(s, title);
    const first = firstOf(overview);
    return { json, columns, stamp: overview.stamp, ...(first ? { first } : {}) };
  }

  graphWindow(key: string, request: WindowRequest): GraphWindow | undefined {
    return this.on(key, request.stamp, (s) => graphWindow(s, request));
  }

  graphEvent(key: string, stamp: number, index: number): GraphNode | undefined {
    return this.on(key, stamp, (s) => graphEvent(s, index));
  }

  findEvents(key: string, stamp: number, query: string): number[] | undefined {
    return this.on(key, stamp, (s) => findEvents(s, query));
  }

  runTool(name: string, input: unknown, view?: ToolView): ChatToolAnswer {
    const traces = toolTraces({
      view: () => view && this.at(view.key, view.stamp),
      session: (file) => [...this.sessions.values()].find((s) => s.snapshot?.path === file)?.snapshot,
      disk: this.disk,
    });
    return runChatTool(traces, name, input);
  }

  compareSessions(keyA: string, stampA: number, keyB: string, stampB: number): CompareModel | { error: string } | undefined {
    const a = this.at(keyA, stampA);
    const b = this.at(keyB, stampB);
    return a && b ? compareView(a, b) : undefined;
  }
}

/** `reading trace.jsonl: 12% (27 of 229 MB)`. */
function readingMessage(name: string, part: { bytes: number; of: number }): string {
  return `reading ${name}: ${shareOf(part)}% (${megabytes(part.bytes)} of ${megabytes(part.of)} MB)`;
}
