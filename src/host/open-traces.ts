/**
 * The host's cache of open traces: per trace file, the summary of the engine's session for it,
 * computed by a {@link TraceEngine} (in the extension, a worker
 * thread: no parse, import or analysis runs on the extension host thread). The host keeps only
 * each session's {@link SessionSummary} and asks the engine the rest. Sessions are read again when
 * the document is edited (debounced), when VS Code reloads it from disk, or when a file of the
 * session changes on disk; a load over a second shows a cancellable progress notification. A large
 * trace is kept and shown as soon as it is read, while its analysis runs (its summary says
 * `analysisPending`), then again analysed. The summary's Problems (reader problems and analysis
 * findings, capped per file) are published.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TraceEngine } from '../engine/trace-engine';
import type { SessionSummary, SessionDiagnostic } from '../engine/summary';
import type { LoadProgress } from '../engine/worker-protocol';
import { globMatches } from '../trace/glob';
import { SNIFF_CHARS, mayBeTrace } from '../trace/trace-sniff';
import type { Problem } from '../trace/model';
import type { MappingProvider } from './editor/mapping-files';
import { messageText, plainText, type MessageText, type PlainText } from '../shared/untrusted-text';
import { StatedOutcomes, type StatedOutcome } from './editor/stated-outcomes';
import { stringLocation } from './editor/event-content';
import { logged } from './log';
import { DiskPoll } from './disk-poll';
import { isSidecar } from '../shared/label-kinds';
import { megabytes, shareOf } from '../shared/part-words';

const TRACE_NAME = /\.otrace\.jsonl?$/;
/** Wait this long after the last keystroke before reading an edited trace again (ms). */
const EDIT_DEBOUNCE_MS = 250;
/** A session whose files grew this recently (ms) is shown as a run in progress. */
const LIVE_WINDOW_MS = 120_000;
/** A load that takes longer than this (ms) shows a progress notification. */
const PROGRESS_AFTER_MS = 1000;

/** Caches trace session summaries by URI and keeps their diagnostics up to date. */
export class OpenTraces implements vscode.Disposable {
  private readonly summaries = new Map<string, SessionSummary>();
  private readonly pending = new Map<string, { version: number; promise: Promise<SessionSummary | undefined> }>();
  /** Loads are numbered as they are asked; per key, the number of the load whose answer the views show (an older load's answer is never shown over it). */
  private loads = 0;
  private readonly shownLoad = new Map<string, number>();
  /** Per document, whether it is a trace (by name, mapping or content), for its version. */
  private readonly traceChecks = new Map<string, { version: number; result: Promise<boolean> }>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** When each session's files last grew on disk (Date.now()). */
  private readonly grewAt = new Map<string, number>();
  /** Per growing session, the timer that says when it stops being in progress ({@link onDidStopGrowing}). */
  private readonly quiet = new Map<string, ReturnType<typeof setTimeout>>();
  private liveWindow = LIVE_WINDOW_MS;
  private readonly stoppedGrowing = new vscode.EventEmitter<string>();
  /**
   * Fires with a session's key when its files have not grown for the live window: it is no longer
   * in progress (the views that said so say it no more). A session whose last read found lines
   * appended is then read again, so that the end of its trace is judged (the analysis of a trace
   * being written gives it no verdict: StopOptions.inProgress).
   */
  readonly onDidStopGrowing = this.stoppedGrowing.event;
  /** Sessions whose trace file is gone from disk (deleted or moved) since it was read: what was read stays shown. */
  private readonly gone = new Set<string>();
  private readonly goneChanged = new vscode.EventEmitter<string>();
  /** Fires with a session's key when its trace file went from disk, or came back ({@link isGone}). */
  readonly onDidChangeGone = this.goneChanged.event;
  private readonly readProgress = new vscode.EventEmitter<{ key: string; part: { bytes: number; of: number } }>();
  /** Fires as the read of a large file shown in part goes on: the bytes read so far of the file's (the views say how far it got). */
  readonly onDidReadOn = this.readProgress.event;
  /** Files (URI strings) each session published diagnostics to, to clear them later. */
  private readonly published = new Map<string, string[]>();
  /** Whether a view shows the session of a key ({@link keepWhileShown}). */
  private shown: (key: string) => boolean = () => false;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('otrace');
  private readonly changed = new vscode.EventEmitter<SessionSummary>();
  /** Fires with a session's new summary after its trace was read again. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this.changed, this.stoppedGrowing, this.goneChanged, this.readProgress];

  /**
   * @param engine loads the sessions and answers every question about them (the views ask it directly).
   * @param mappings the mapping files that may read a trace (settings, then workspace), when the editor has them.
   * @param memory where stated outcomes are kept (the workspace state); without it they last the window's life.
   */
  constructor(
    readonly engine: TraceEngine,
    private readonly mappings?: MappingProvider,
    memory?: vscode.Memento,
  ) {
    this.outcomes = new StatedOutcomes(memory);
    if (mappings) this.disposables.push(mappings.onDidChange((paths) => this.mappingsChanged(paths)));
    const stopListening = engine.onDidRestart(() => this.restarted());
    this.disposables.push(
      { dispose: stopListening },
      vscode.workspace.onDidOpenTextDocument((d) => void this.refresh(d)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        // A clean document changed by no edit, undo or redo: VS Code reloaded it from disk.
        if (e.reason === undefined && !e.document.isDirty) this.grew(e.document.uri.toString());
        this.refreshLater(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.closed(d.uri)),
    );
    for (const d of vscode.workspace.textDocuments) void this.refresh(d);
    this.disposables.push(
      new DiskPoll({
        keys: () => this.polledKeys(),
        growing: (key) => this.growing(key),
        // a trace file gone from disk is looked for again (back under its name: moved back, written again)
        filesChanged: (key) => (this.gone.has(key) ? Promise.resolve(fs.existsSync(vscode.Uri.parse(key).fsPath)) : this.engine.filesChanged(key)),
        reload: (key) => void this.reload(key, {}),
      }),
    );
  }

  /** The sessions the disk poll looks at: read from local files, no load running, no unsaved edits (the edits are what is shown). */
  private *polledKeys(): Iterable<string> {
    for (const key of this.summaries.keys()) {
      if (this.pending.has(key) || !key.startsWith('file:')) continue;
      if (vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === key)) continue;
      yield key;
    }
  }

  /**
   * True when the document is a trace file: by name, by a mapping file that applies to it, or
   * (JSON/JSONL) by content. Only a file whose name a mapping's glob matches, or whose start shows
   * a built-in format's sign (src/trace/trace-sniff.ts), is asked of the engine: any other JSON
   * file (a package.json, a settings file) starts no worker.
   */
  isTrace(document: vscode.TextDocument): Promise<boolean> {
    if (isSidecar(document.fileName)) return Promise.resolve(false); // a labels file is no trace, whatever it looks like
    if (TRACE_NAME.test(document.fileName)) return Promise.resolve(true);
    const key = document.uri.toString();
    const known = this.traceChecks.get(key);
    if (known && known.version === document.version) return known.result;
    const name = document.fileName;
    const mayMap = !name.endsWith('.otrace-map.json') && (this.mappings?.sources() ?? []).some((s) => !!s.glob && globMatches(s.glob, name));
    const json = ['json', 'jsonl', 'jsonc'].includes(document.languageId) || /\.jsonl?$/.test(name);
    const byContent = json && vscode.workspace.getConfiguration('otrace').get<boolean>('detectByContent', true);
    if (!mayMap && !byContent) return Promise.resolve(false);
    const start = () => document.getText(new vscode.Range(new vscode.Position(0, 0), document.positionAt(SNIFF_CHARS)));
    const head = () => document.getText(new vscode.Range(0, 0, Math.min(document.lineCount, 50), 0));
    const result = mayMap || mayBeTrace(start(), name) ? this.engine.detect(head(), name, byContent).catch(logged(`asking the engine whether ${name} is a trace`, false)) : Promise.resolve(false);
    this.traceChecks.set(key, { version: document.version, result });
    return result;
  }

  /**
   * Mapping files changed (`paths`): reads again every open trace that a changed mapping read, or
   * whose name a changed mapping's glob matches (a new mapping, a new glob, a fixed mapping), and
   * open documents that a mapping now makes traces.
   */
  private mappingsChanged(paths: ReadonlySet<string>): void {
    this.traceChecks.clear();
    const sources = this.mappings?.sources() ?? [];
    const affects = (fsPath: string, mappingPath: string | undefined): boolean =>
      (mappingPath !== undefined && paths.has(mappingPath)) || sources.some((s) => paths.has(s.path) && !!s.glob && globMatches(s.glob, fsPath));
    for (const summary of [...this.summaries.values()]) {
      if (affects(summary.path, summary.mappingPath)) void this.reload(summary.key, { force: true });
    }
    for (const d of vscode.workspace.textDocuments) {
      if (!this.summaries.has(d.uri.toString()) && !this.pending.has(d.uri.toString()) && affects(d.uri.fsPath, undefined)) void this.refresh(d);
    }
  }

  /** The engine lost its sessions (its worker was started again): every session is read again. */
  private restarted(): void {
    const keys = [...this.summaries.keys()];
    this.summaries.clear();
    this.pending.clear();
    this.traceChecks.clear();
    for (const key of keys) void this.reload(key, {});
  }

  /**
   * The run's outcome the user stated for a trace (otrace: Set the Run's Outcome…), by session key;
   * kept in the workspace's storage and sent with every load of that trace.
   */
  private readonly outcomes: StatedOutcomes;

  /** The outcome the user stated for a trace, if any. */
  statedOutcome(uri: vscode.Uri): StatedOutcome | undefined {
    return this.outcomes.get(uri.toString());
  }

  /**
   * States the run's outcome of a trace (undefined: back to the trace's own signal) and analyses it
   * again; resolves to the new summary.
   */
  setOutcome(uri: vscode.Uri, outcome: StatedOutcome | undefined): Promise<SessionSummary | undefined> {
    const key = uri.toString();
    this.outcomes.set(key, outcome);
    return this.reload(key, { force: true });
  }

  /** Reads a session again: from its open document when there is one, else from its file. */
  private reload(key: string, options: { force?: boolean; changed?: string[] }): Promise<SessionSummary | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    const uri = open?.uri ?? vscode.Uri.parse(key);
    if (!open && uri.scheme !== 'file') {
      this.summaries.delete(key);
      return this.forUri(uri).catch(logged(`reading ${uri.toString()} again`)); // read through VS Code's file system
    }
    // a file gone from disk is not asked of the engine again (the disk poll asks every few seconds) until it is back
    if (!open && this.gone.has(key) && !fs.existsSync(uri.fsPath)) return Promise.resolve(this.summaries.get(key));
    return this.load(key, open ? open.version : -1, uri, open ? textToSend(open) : undefined, options).catch(logged(`reading ${uri.fsPath} again`));
  }

  /**
   * True when the session's trace file is gone from disk (deleted, moved or renamed) since it was
   * read and no editor holds it: the views show what was read, and say the file is gone.
   */
  isGone(uri: vscode.Uri): boolean {
    return this.gone.has(uri.toString());
  }

  /** Notes whether the session's trace file is gone from disk; fires {@link onDidChangeGone} when that changed. */
  private setGone(key: string, gone: boolean): void {
    if (gone === this.gone.has(key)) return;
    if (gone) this.gone.add(key);
    else this.gone.delete(key);
    this.goneChanged.fire(key);
  }

  /** Every session read so far. */
  all(): SessionSummary[] {
    return [...this.summaries.values()];
  }

  /** The summary of a trace, whatever its version (undefined when never read). */
  peek(uri: vscode.Uri): SessionSummary | undefined {
    return this.summaries.get(uri.toString());
  }

  /** The session of an open document at its current version, or undefined when it is no trace. */
  async forDocument(document: vscode.TextDocument): Promise<SessionSummary | undefined> {
    const key = document.uri.toString();
    const current = () => {
      const cached = this.summaries.get(key);
      if (cached && cached.version === document.version) return cached;
      const running = this.pending.get(key);
      return running && running.version === document.version ? running.promise : undefined;
    };
    const known = current();
    if (known) return known;
    if (!(await this.isTrace(document))) return undefined;
    const now = current();
    if (now) return now;
    // A sub-agent file of an open session shows that session (its own parse would hide the rest of the run).
    const parent = this.parentOf(document.uri);
    if (parent) return parent.summary;
    return this.load(key, document.version, document.uri, textToSend(document), {});
  }

  /** The session of a file: from its open document when there is one, else read from disk (and watched). */
  async forUri(uri: vscode.Uri): Promise<SessionSummary | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const fromDocument = open && (await this.forDocument(open));
    if (fromDocument) return fromDocument;
    const key = uri.toString();
    const cached = this.summaries.get(key);
    if (cached && !open) return cached;
    const running = this.pending.get(key);
    if (running && running.version === -1) return running.promise;
    this.watch(uri);
    const text = uri.scheme === 'file' ? undefined : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    return this.load(key, -1, uri, text, {});
  }

  /**
   * True while a session's files are growing on disk (lines appended within the last two
   * minutes): the run is still being written, so it is shown as in progress.
   */
  isGrowing(uri: vscode.Uri): boolean {
    return this.growing(uri.toString());
  }

  /** {@link isGrowing} of the session with this key (its URI as a string). */
  private growing(key: string): boolean {
    const at = this.grewAt.get(key);
    return at !== undefined && Date.now() - at < this.liveWindow;
  }

  /** How long (ms) after its files last grew a session is in progress: two minutes; tests shorten it (the sessions growing now are timed again). */
  get liveWindowMs(): number {
    return this.liveWindow;
  }

  set liveWindowMs(ms: number) {
    this.liveWindow = ms;
    for (const key of [...this.quiet.keys()]) this.quietLater(key);
  }

  /** A session's files grew now: in progress for the live window. */
  private grew(key: string): void {
    this.grewAt.set(key, Date.now());
    this.quietLater(key);
  }

  /** (Re)sets the timer that fires {@link onDidStopGrowing} for `key` when its live window ends. */
  private quietLater(key: string): void {
    clearTimeout(this.quiet.get(key));
    const at = this.grewAt.get(key);
    if (at === undefined) return void this.quiet.delete(key);
    const timer = setTimeout(() => {
      this.quiet.delete(key);
      if (this.growing(key)) return this.quietLater(key);
      this.stoppedGrowing.fire(key);
      // its last analysis left the end of the trace unjudged (read as it grew: "no stop yet"): judged now
      if (this.summaries.get(key)?.grew) void this.reload(key, { force: true });
    }, Math.max(0, at + this.liveWindow - Date.now()) + 10);
    this.quiet.set(key, timer);
  }

  /** Bytes read from disk for a session so far (its trace file when not open with edits, and the files it pulls in). */
  bytesRead(uri: vscode.Uri): number {
    return this.summaries.get(uri.toString())?.bytesRead ?? 0;
  }

  /** The first `max` events and edges of a session, and its problems' messages (for tests; never a whole large trace). */
  async inspect(uri: vscode.Uri, max = 10_000): Promise<Awaited<ReturnType<TraceEngine['inspect']>>> {
    const summary = this.summaries.get(uri.toString());
    return summary && this.engine.inspect(summary.key, summary.stamp, max);
  }

  /**
   * The session a file belongs to and the file's key inside it (`''` for the trace file itself,
   * else the origin `file` of a sub-agent transcript), among the sessions read so far.
   */
  containing(uri: vscode.Uri): { summary: SessionSummary; file: string } | undefined {
    const own = this.summaries.get(uri.toString());
    return this.parentOf(uri) ?? (own ? { summary: own, file: '' } : undefined);
  }

  /** The session that read this file as one of its parts (a sub-agent transcript), if one is open. */
  private parentOf(uri: vscode.Uri): { summary: SessionSummary; file: string } | undefined {
    for (const summary of this.summaries.values()) {
      if (summary.key === uri.toString()) continue;
      for (const file of summary.files) {
        if (file && path.resolve(path.dirname(summary.path), file) === uri.fsPath) return { summary, file };
      }
    }
    return undefined;
  }

  /** The URI of a file of a session: `''` is the trace file, else an origin's `file` (a sub-agent file next to it) or an absolute path. */
  fileOf(summary: SessionSummary, file: string | undefined): vscode.Uri {
    return file ? vscode.Uri.file(path.resolve(path.dirname(summary.path), file)) : vscode.Uri.parse(summary.key);
  }

  private load(key: string, version: number, uri: vscode.Uri, text: string | undefined, options: { force?: boolean; changed?: string[] }): Promise<SessionSummary | undefined> {
    let report: ((p: LoadProgress) => void) | undefined;
    let last: LoadProgress | undefined;
    let analysingShown = false;
    /** The status bar's progress of this load, once shown: says how far a large file's read has got, then that its analysis runs. */
    let status: ((message: MessageText) => void) | undefined;
    /** The file's size once the status bar said how far a large file's read got (then the read ends, and the analysis runs). */
    let readOf: number | undefined;
    const outcome = this.outcomes.get(key);
    const request = { key, version, path: uri.fsPath, text, local: uri.scheme === 'file', ...options, ...(outcome ? { outcome } : {}) };
    const number = ++this.loads;
    /** Shows a summary of this load unless the views show a newer load's. */
    const show = (summary: SessionSummary) => {
      if ((this.shownLoad.get(key) ?? 0) > number) return false;
      this.shownLoad.set(key, number);
      this.loaded(summary);
      return true;
    };
    const promise: Promise<SessionSummary | undefined> = this.engine
      .load(request, (p) => {
        // a large trace as read, its analysis running: the views show it now (the answer brings the analysed summary)
        // (once per load: a large file's first part, the whole as read and a stopped read each come as read)
        if (p.read && this.pending.get(key)?.promise === promise && show(p.read) && !analysingShown) {
          analysingShown = true;
          this.showAnalysing(uri, promise, p.read.reading !== undefined, (f) => (status = f));
        }
        if (p.part && this.pending.get(key)?.promise === promise) {
          readOf = p.part.of;
          status?.(readWords(p.part));
          this.readProgress.fire({ key, part: p.part });
        } else if (p.phase === 'analyze' && readOf !== undefined) {
          // the whole file read: the views say so until the whole trace replaces the part; `analysing 1,000,000 events`
          if (p.read) this.readProgress.fire({ key, part: { bytes: readOf, of: readOf } });
          status?.(messageText`${p.message}`);
        }
        last = p;
        report?.(p);
      })
      .then(
        (summary) => {
          if (this.pending.get(key)?.promise !== promise) {
            // superseded by a newer version (its promise answers), or cancelled (the session stays as it was); the analysis
            // of a followed trace runs to its end though a newer load came (the engine reads that one after it): shown until the newer one answers
            if (summary && this.pending.has(key)) show(summary);
            return this.pending.get(key)?.promise ?? this.summaries.get(key);
          }
          this.pending.delete(key);
          // read (changed or not): the file is there
          this.setGone(key, false);
          if (!summary) return this.summaries.get(key);
          show(summary);
          return summary;
        },
        (err: Error) => {
          if (this.pending.get(key)?.promise === promise) this.pending.delete(key);
          // a file read before and gone from disk since (deleted, moved): no error, what was read stays shown, and the views say it is gone
          if (request.local && text === undefined && this.summaries.has(key) && !fs.existsSync(uri.fsPath)) {
            this.setGone(key, true);
            return this.summaries.get(key);
          }
          throw err;
        },
      );
    this.pending.set(key, { version, promise });
    this.showProgressAfter(key, uri, promise, (f) => {
      report = f;
      if (last) f(last);
    });
    return promise;
  }

  /** A load finished: keeps the summary; when the trace changed, publishes it and tells the views. */
  private loaded(summary: SessionSummary): void {
    const previous = this.summaries.get(summary.key);
    this.summaries.set(summary.key, summary);
    if (previous?.stamp === summary.stamp) return; // nothing on disk changed
    // a new snapshot made from appended lines: the run is being written (not a re-read of the same one)
    if (summary.grew) this.grew(summary.key);
    this.watchParts(summary);
    this.publish(summary);
    this.changed.fire(summary);
  }

  /**
   * While a trace shown as read is analysed: `otrace: analysing <file>…` in the status bar (the window's progress), until
   * the load ends; `otrace: <file>: reading the rest of the file…` when what is shown first is a large file's first part (`reading`),
   * then what it does as it goes on (`: 55% read (120 of 218 MB)`, `: analysing 1,000,000 events`: given to `listen`'s reporter).
   */
  private showAnalysing(uri: vscode.Uri, promise: Promise<unknown>, reading: boolean, listen: (report: (message: MessageText) => void) => void): void {
    const title = reading ? messageText`otrace: ${path.basename(uri.fsPath)}` : messageText`otrace: analysing ${path.basename(uri.fsPath)}…`;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, (progress) => {
      if (reading) progress.report({ message: messageText`reading the rest of the file…` });
      listen((message) => progress.report({ message }));
      return promise.then(
        () => undefined,
        () => undefined,
      );
    });
  }

  /** After {@link PROGRESS_AFTER_MS}, a cancellable notification with the load's phase until it ends. */
  private showProgressAfter(key: string, uri: vscode.Uri, promise: Promise<unknown>, listen: (report: (p: LoadProgress) => void) => void): void {
    const timer = setTimeout(() => {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: messageText`otrace: ${path.basename(uri.fsPath)}`, cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => this.engine.cancel(key));
        // (a part read said in otrace's own words: the engine's carry the file's name, escaped as untrusted, its parentheses too)
        listen((p) => progress.report({ message: p.part ? readWords(p.part) : messageText`${p.message}` }));
        // the load's failure is the caller's (logged or shown there): the notification only ends
        return promise.then(
          () => undefined,
          () => undefined,
        );
      });
    }, PROGRESS_AFTER_MS);
    const clear = () => clearTimeout(timer);
    promise.then(clear, clear);
  }

  private refresh(document: vscode.TextDocument): Promise<SessionSummary | undefined> {
    if (!['file', 'untitled', 'vscode-remote'].includes(document.uri.scheme)) return Promise.resolve(undefined);
    return this.forDocument(document).catch(logged(`reading ${document.fileName}`));
  }

  private refreshLater(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.refresh(document);
      }, EDIT_DEBOUNCE_MS),
    );
  }

  /**
   * Follows a file that is not open as a document: when it changes on disk, the engine reads what
   * was appended (or the whole file, when it was rewritten) and reads the session again.
   */
  private watch(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.watchers.has(key) || uri.scheme !== 'file') return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(uri.fsPath)), path.basename(uri.fsPath)));
    const reread = () => {
      if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return; // the document path handles it
      void this.load(key, -1, uri, undefined, { changed: [uri.fsPath] }).catch(logged(`reading ${uri.fsPath} after it changed on disk`));
    };
    watcher.onDidChange(reread);
    watcher.onDidCreate(reread);
    // deleted or moved away: the read finds it gone (no error; the views say so) and a new file of its name is read again
    watcher.onDidDelete(reread);
    this.watchers.set(key, watcher);
  }

  /**
   * Watches the other files a session was read from (Claude Code sub-agent transcripts) and the
   * folder named like the trace file, where new ones appear (`<session>/subagents/*.jsonl`): when
   * one changes, the engine reads its appended lines and the session again; a new one is read whole.
   */
  private watchParts(summary: SessionSummary): void {
    const trace = vscode.Uri.parse(summary.key);
    if (trace.scheme !== 'file') return;
    const dir = path.dirname(summary.path);
    const reread = (changed: vscode.Uri) => {
      if (changed.fsPath !== summary.path) void this.reload(summary.key, { changed: [changed.fsPath] });
    };
    const watchPattern = (id: string, pattern: vscode.RelativePattern) => {
      if (this.watchers.has(id)) return;
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      watcher.onDidChange(reread);
      watcher.onDidCreate(reread);
      this.watchers.set(id, watcher);
    };
    const stem = path.basename(summary.path).replace(/\.[^.]*$/, '');
    watchPattern(`${summary.key} ${stem}/**`, new vscode.RelativePattern(vscode.Uri.file(dir), `${stem}/**/*.jsonl`));
    for (const file of summary.files) {
      if (!file) continue;
      const part = vscode.Uri.file(path.resolve(dir, file));
      if (!path.relative(path.join(dir, stem), part.fsPath).startsWith('..')) continue; // the folder's watcher has it
      watchPattern(`${summary.key} ${part.toString()}`, new vscode.RelativePattern(vscode.Uri.file(path.dirname(part.fsPath)), path.basename(part.fsPath)));
    }
  }

  /**
   * No view shows `uri` any more (its graph closed, or shows another trace): a trace read from disk
   * for a view (no document of it open) stops being watched and is forgotten, its Problems with it.
   * Its watchers kept it (and its Problems) for as long as VS Code ran: a binary file's 22 errors
   * stayed in Problems after its graph and editor were closed (a fresh helper's trial).
   * @param stillShown true when another view shows the trace of this key.
   */
  letGo(uri: vscode.Uri, stillShown: (key: string) => boolean): void {
    const key = uri.toString();
    if (stillShown(key) || !this.watchers.has(key)) return;
    // the document of a trace keeps it (forgotten when it closes); a file no format reads (a package.json opened in a graph) is let go with its error
    if (this.summaries.get(key)?.format !== 'unknown' && vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return;
    this.watchers.get(key)!.dispose();
    this.watchers.delete(key);
    this.forget(uri);
  }

  /**
   * Tells which sessions a view shows (by key), so that closing a trace's editor does not forget a
   * session its graph still shows ({@link closed}). Until called, no session counts as shown.
   */
  keepWhileShown(shown: (key: string) => boolean): void {
    this.shown = shown;
  }

  /**
   * A document closed. A trace file a graph still shows is followed from disk from now on (its
   * watcher, its Problems, "in progress" while it grows) and read from disk, where edits closed
   * unsaved are not; any other is forgotten. Forgetting it left the graph on a session no longer
   * followed ("in progress" for good) and Problems empty (a fresh user's trial).
   */
  private closed(uri: vscode.Uri): void {
    const key = uri.toString();
    if (uri.scheme !== 'file' || !this.summaries.has(key) || !this.shown(key)) return this.forget(uri);
    this.traceChecks.delete(key);
    this.watch(uri);
    void this.load(key, -1, uri, undefined, {}).catch(logged(`reading ${uri.fsPath} after its editor closed`));
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.traceChecks.delete(key);
    if (this.watchers.has(key)) return; // a graph still shows it from disk
    this.summaries.delete(key);
    this.gone.delete(key);
    this.pending.delete(key);
    this.shownLoad.delete(key);
    this.grewAt.delete(key);
    clearTimeout(this.quiet.get(key));
    this.quiet.delete(key);
    this.engine.release(key);
    for (const [id, watcher] of this.watchers) {
      if (!id.startsWith(`${key} `)) continue;
      watcher.dispose();
      this.watchers.delete(id);
    }
    for (const file of this.published.get(key) ?? []) this.diagnostics.delete(vscode.Uri.parse(file));
    this.published.delete(key);
  }

  /** The summary's Problems, on the file each is in (a sub-agent file has its own); the engine capped them per file. */
  private publish(summary: SessionSummary): void {
    const uriOf = (file: string) => (file ? vscode.Uri.file(file) : vscode.Uri.parse(summary.key));
    const files: string[] = [];
    for (const { file, items } of summary.diagnostics) {
      const uri = uriOf(file);
      files.push(uri.toString());
      this.diagnostics.set(uri, items.map((d) => toDiagnostic(d, uriOf, summary.key)));
    }
    for (const old of this.published.get(summary.key) ?? []) if (!files.includes(old)) this.diagnostics.delete(vscode.Uri.parse(old));
    this.published.set(summary.key, files);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const t of this.quiet.values()) clearTimeout(t);
    for (const w of this.watchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.engine.dispose();
  }
}

/** The text the engine needs of an open document: none when the file on disk is the same (the engine reads it there). */
function textToSend(document: vscode.TextDocument): string | undefined {
  return document.isDirty || document.uri.scheme !== 'file' ? document.getText() : undefined;
}

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/**
 * A Problems panel entry. An event inside a long JSON string (a MAST log: the editor shows its line
 * collapsed) is also listed, first among the related locations, at its line of the string's text
 * (the document the jump opens), and the finding's other events inside it point there too; an
 * event or problem past the start of a long line (a one-line OTLP export) likewise, at its place in
 * the line's JSON formatted.
 * @param trace the session key (the trace's URI string), which names the string's text.
 */
function toDiagnostic(d: SessionDiagnostic, uriOf: (file: string) => vscode.Uri, trace: string): vscode.Diagnostic {
  const out = new vscode.Diagnostic(toRange(d.range), plainText`${d.message}`, SEVERITY[d.severity]);
  out.source = 'otrace';
  if (d.code) out.code = d.code;
  const related = (d.related ?? []).map((r) => new vscode.DiagnosticRelatedInformation(r.inString ? stringLocation(trace, r.inString) : new vscode.Location(uriOf(r.file), toRange(r.range)), plainText`${r.message}`));
  if (d.inString) related.unshift(new vscode.DiagnosticRelatedInformation(stringLocation(trace, d.inString), inStringWords(d)));
  if (related.length) out.relatedInformation = related;
  return out;
}

/** What the first related location of an entry at a long line says: where its text is shown. */
function inStringWords(d: SessionDiagnostic): PlainText {
  const spot = d.inString!;
  if (spot.view !== 'json') return plainText`this event, at line ${spot.at.line + 1} of the string's text (the file shows that string collapsed)`;
  return plainText`${d.code ? 'this event' : 'here'}, at line ${spot.at.line + 1} of line ${spot.line + 1} formatted (the editor does not draw column ${spot.character + 1} of that line)`;
}

/** A model range as a VS Code range (both 0-based). */
export function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** How far a large file's read has got, for a progress message: `31% read (68 of 218 MB)`. */
function readWords(part: { bytes: number; of: number }): MessageText {
  return messageText`${shareOf(part)}% read (${megabytes(part.bytes)} of ${megabytes(part.of)} MB)`;
}
