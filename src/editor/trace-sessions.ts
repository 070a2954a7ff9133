/**
 * One cached session per trace file: the {@link TraceSnapshot} (parse + analysis) of its current
 * text, computed by a {@link TraceEngine} (async: a worker can take it over), refreshed when the
 * document is edited (debounced) or the file changes on disk, and published to the Problems panel:
 * reader problems and analysis findings, at their ranges, with the finding's other events as
 * related information.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { capDiagnostics } from '../session/diagnostic-cap';
import { InProcessEngine, type TraceEngine } from '../session/engine';
import type { TraceSnapshot } from '../session/snapshot';
import { detectFormat, type FileAccess } from '../trace/formats';
import { LiveFiles } from '../trace/live-files';
import { globMatches } from '../trace/mapping';
import { chooseMapping } from '../trace/mapping-choice';
import type { MappingProvider } from './mapping-files';
import type { Origin, Problem } from '../trace/model';

const TRACE_NAME = /\.otrace\.jsonl?$/;
/** Wait this long after the last keystroke before reading an edited trace again (ms). */
const EDIT_DEBOUNCE_MS = 300;
/** A session whose files grew this recently (ms) is shown as a run in progress. */
const LIVE_WINDOW_MS = 120_000;
/** Related locations listed per finding in the Problems panel. */
const MAX_RELATED = 20;

/** Caches trace sessions by URI and keeps their diagnostics up to date. */
export class TraceSessions implements vscode.Disposable {
  private readonly snapshots = new Map<string, TraceSnapshot>();
  private readonly pending = new Map<string, { version: number; promise: Promise<TraceSnapshot | undefined> }>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Per session on disk: its files as read, followed as they grow (only appended bytes are read again). */
  private readonly live = new Map<string, LiveFiles>();
  /** When each session's files last grew on disk (Date.now()). */
  private readonly grewAt = new Map<string, number>();
  /** Files (URI strings) each session published diagnostics to, to clear them later. */
  private readonly published = new Map<string, string[]>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('otrace');
  private readonly changed = new vscode.EventEmitter<TraceSnapshot>();
  /** Fires with a session's new snapshot after its trace was read again. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this.changed];

  /**
   * @param engine computes snapshots and answers the graph's window requests (the graph view asks it directly).
   * @param mappings the mapping files that may read a trace (settings, then workspace), when the editor has them.
   */
  constructor(
    readonly engine: TraceEngine = new InProcessEngine(),
    private readonly mappings?: MappingProvider,
  ) {
    if (mappings) this.disposables.push(mappings.onDidChange((paths) => this.mappingsChanged(paths)));
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => void this.refresh(d)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        // A clean document changed by no edit, undo or redo: VS Code reloaded it from disk.
        if (e.reason === undefined && !e.document.isDirty) this.noteGrowth(e.document.uri.toString(), 'appended');
        this.refreshLater(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
    );
    for (const d of vscode.workspace.textDocuments) void this.refresh(d);
  }

  /** True when the document is a trace file: by name, by a mapping file that applies to it, or (JSON/JSONL) by content. */
  isTrace(document: vscode.TextDocument): boolean {
    if (TRACE_NAME.test(document.fileName)) return true;
    const head = () => document.getText(new vscode.Range(0, 0, Math.min(document.lineCount, 50), 0));
    const sources = this.mappings?.sources() ?? [];
    if (sources.length && !document.fileName.endsWith('.otrace-map.json') && chooseMapping(sources, head(), document.fileName)) return true;
    if (!['json', 'jsonl', 'jsonc'].includes(document.languageId) && !/\.jsonl?$/.test(document.fileName)) return false;
    if (!vscode.workspace.getConfiguration('otrace').get<boolean>('detectByContent', true)) return false;
    return detectFormat(head(), document.fileName) !== undefined;
  }

  /**
   * Mapping files changed (`paths`): reads again every open trace that a changed mapping read, or
   * whose name a changed mapping's glob matches (a new mapping, a new glob, a fixed mapping), and
   * open documents that a mapping now makes traces.
   */
  private mappingsChanged(paths: ReadonlySet<string>): void {
    const sources = this.mappings?.sources() ?? [];
    const affects = (fsPath: string, mappingPath: string | undefined): boolean =>
      (mappingPath !== undefined && paths.has(mappingPath)) || sources.some((s) => paths.has(s.path) && !!s.glob && globMatches(s.glob, fsPath));
    for (const snapshot of [...this.snapshots.values()]) {
      if (!affects(snapshot.path, snapshot.loaded.mappingPath)) continue;
      this.snapshots.delete(snapshot.key);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === snapshot.key);
      if (open) void this.forDocument(open);
      else void this.forUri(vscode.Uri.parse(snapshot.key)).catch(() => undefined);
    }
    for (const d of vscode.workspace.textDocuments) {
      if (!this.snapshots.has(d.uri.toString()) && !this.pending.has(d.uri.toString()) && affects(d.uri.fsPath, undefined)) void this.refresh(d);
    }
  }

  /** Every session read so far. */
  all(): TraceSnapshot[] {
    return [...this.snapshots.values()];
  }

  /** The cached snapshot of a trace, whatever its version (undefined when never read). */
  peek(uri: vscode.Uri): TraceSnapshot | undefined {
    return this.snapshots.get(uri.toString());
  }

  /** The session of an open document at its current version, or undefined when it is no trace. */
  forDocument(document: vscode.TextDocument): Promise<TraceSnapshot | undefined> {
    const key = document.uri.toString();
    const cached = this.snapshots.get(key);
    if (cached && cached.version === document.version) return Promise.resolve(cached);
    const running = this.pending.get(key);
    if (running && running.version === document.version) return running.promise;
    if (!this.isTrace(document)) return Promise.resolve(undefined);
    // A sub-agent file of an open session shows that session (its own parse would hide the rest of the run).
    const parent = this.parentOf(document.uri);
    if (parent) return Promise.resolve(parent.snapshot);
    return this.load(key, document.version, document.uri, document.getText());
  }

  /** The session of a file: from its open document when there is one, else read from disk (and watched). */
  async forUri(uri: vscode.Uri): Promise<TraceSnapshot> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const fromDocument = open && (await this.forDocument(open));
    if (fromDocument) return fromDocument;
    const key = uri.toString();
    const cached = this.snapshots.get(key);
    if (cached && !open) return cached;
    this.watch(uri);
    const files = this.filesOf(key, uri);
    const text = files ? files.readText(uri.fsPath) : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    if (text === undefined) throw new Error(`cannot read ${uri.fsPath}`);
    return (await this.load(key, -1, uri, text))!;
  }

  /**
   * True while a session's files are growing on disk (lines appended within the last two
   * minutes): the run is still being written, so it is shown as in progress.
   */
  isGrowing(uri: vscode.Uri): boolean {
    const at = this.grewAt.get(uri.toString());
    return at !== undefined && Date.now() - at < LIVE_WINDOW_MS;
  }

  private noteGrowth(key: string, change: string | undefined): void {
    if (change === 'appended') this.grewAt.set(key, Date.now());
    else this.grewAt.delete(key);
  }

  /** Bytes read from disk for a session so far (its trace file when not open as a document, and the files it pulls in). */
  bytesRead(uri: vscode.Uri): number {
    return this.live.get(uri.toString())?.bytesRead ?? 0;
  }

  /** The files of a session on the local disk, followed as they grow; undefined for other schemes. */
  private filesOf(key: string, uri: vscode.Uri): LiveFiles | undefined {
    if (uri.scheme !== 'file') return undefined;
    let files = this.live.get(key);
    if (!files) this.live.set(key, (files = new LiveFiles()));
    return files;
  }

  /**
   * The session a file belongs to and the file's key inside it (`''` for the trace file itself,
   * else the origin `file` of a sub-agent transcript), among the sessions read so far.
   */
  containing(uri: vscode.Uri): { snapshot: TraceSnapshot; file: string } | undefined {
    return this.parentOf(uri) ?? (this.snapshots.has(uri.toString()) ? { snapshot: this.snapshots.get(uri.toString())!, file: '' } : undefined);
  }

  /** The session that read this file as one of its parts (a sub-agent transcript), if one is open. */
  private parentOf(uri: vscode.Uri): { snapshot: TraceSnapshot; file: string } | undefined {
    for (const snapshot of this.snapshots.values()) {
      if (snapshot.key === uri.toString()) continue;
      for (const file of snapshot.byFile.keys()) {
        if (file && path.resolve(path.dirname(snapshot.path), file) === uri.fsPath) return { snapshot, file };
      }
    }
    return undefined;
  }

  /** The URI of the file an event came from (the trace file, or a sub-agent file next to it). */
  fileOf(snapshot: TraceSnapshot, origin: Origin | undefined): vscode.Uri {
    const trace = vscode.Uri.parse(snapshot.key);
    return origin?.file ? vscode.Uri.file(path.resolve(path.dirname(snapshot.path), origin.file)) : trace;
  }

  private load(key: string, version: number, uri: vscode.Uri, text: string): Promise<TraceSnapshot | undefined> {
    const promise = this.engine
      .load({ key, version, path: uri.fsPath, text, files: this.filesOf(key, uri) as FileAccess | undefined, mappings: this.mappings?.sources() })
      .then((snapshot) => {
        if (this.pending.get(key)?.promise !== promise) return snapshot; // a newer version is on its way
        this.pending.delete(key);
        this.snapshots.set(key, snapshot);
        this.watchParts(snapshot);
        this.publish(snapshot);
        this.changed.fire(snapshot);
        return snapshot;
      });
    this.pending.set(key, { version, promise });
    return promise;
  }

  private refresh(document: vscode.TextDocument): Promise<TraceSnapshot | undefined> {
    if (!['file', 'untitled', 'vscode-remote'].includes(document.uri.scheme)) return Promise.resolve(undefined);
    return this.forDocument(document);
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
   * Follows a file that is not open as a document: when it changes on disk, reads what was appended
   * (or the whole file, when it was rewritten) and reads the session again from memory.
   */
  private watch(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.watchers.has(key) || uri.scheme !== 'file') return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(uri.fsPath)), path.basename(uri.fsPath)));
    const reread = () => {
      if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return; // the document path handles it
      const change = this.filesOf(key, uri)?.refresh(uri.fsPath);
      if (change === 'unchanged') return;
      this.noteGrowth(key, change);
      this.snapshots.delete(key);
      void this.forUri(uri).catch(() => undefined);
    };
    watcher.onDidChange(reread);
    watcher.onDidCreate(reread);
    this.watchers.set(key, watcher);
  }

  /**
   * Watches the other files a session was read from (Claude Code sub-agent transcripts) and the
   * folder named like the trace file, where new ones appear (`<session>/subagents/*.jsonl`): when
   * one changes, its appended lines are read and the session is read again; a new one is read whole.
   */
  private watchParts(snapshot: TraceSnapshot): void {
    const trace = vscode.Uri.parse(snapshot.key);
    if (trace.scheme !== 'file') return;
    const dir = path.dirname(snapshot.path);
    const reread = (changed: vscode.Uri) => {
      const files = this.filesOf(snapshot.key, trace);
      if (changed.fsPath === snapshot.path) return;
      const change = files?.refresh(changed.fsPath);
      if (change === 'unchanged') return;
      this.noteGrowth(snapshot.key, change);
      this.snapshots.delete(snapshot.key);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === snapshot.key);
      if (open) void this.forDocument(open);
      else void this.forUri(trace).catch(() => undefined);
    };
    const watchPattern = (id: string, pattern: vscode.RelativePattern) => {
      if (this.watchers.has(id)) return;
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      watcher.onDidChange(reread);
      watcher.onDidCreate(reread);
      this.watchers.set(id, watcher);
    };
    const stem = path.basename(snapshot.path).replace(/\.[^.]*$/, '');
    watchPattern(`${snapshot.key} ${stem}/**`, new vscode.RelativePattern(vscode.Uri.file(dir), `${stem}/**/*.jsonl`));
    for (const file of snapshot.byFile.keys()) {
      if (!file) continue;
      const part = vscode.Uri.file(path.resolve(dir, file));
      if (!path.relative(path.join(dir, stem), part.fsPath).startsWith('..')) continue; // the folder's watcher has it
      watchPattern(`${snapshot.key} ${part.toString()}`, new vscode.RelativePattern(vscode.Uri.file(path.dirname(part.fsPath)), path.basename(part.fsPath)));
    }
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.watchers.has(key)) return; // a graph still shows it from disk
    this.snapshots.delete(key);
    this.pending.delete(key);
    this.live.delete(key);
    this.grewAt.delete(key);
    this.engine.release(key);
    for (const [id, watcher] of this.watchers) {
      if (!id.startsWith(`${key} `)) continue;
      watcher.dispose();
      this.watchers.delete(id);
    }
    for (const file of this.published.get(key) ?? []) this.diagnostics.delete(vscode.Uri.parse(file));
    this.published.delete(key);
  }

  /** Problems and findings become diagnostics on the file they are in (a sub-agent file has its own). */
  private publish(snapshot: TraceSnapshot): void {
    const trace = vscode.Uri.parse(snapshot.key);
    const byFile = new Map<string, vscode.Diagnostic[]>([[trace.toString(), []]]);
    const add = (uri: vscode.Uri, d: vscode.Diagnostic) => {
      d.source = 'otrace';
      const list = byFile.get(uri.toString()) ?? [];
      list.push(d);
      byFile.set(uri.toString(), list);
    };
    for (const p of snapshot.loaded.problems) {
      const file = p.file ? vscode.Uri.file(path.resolve(path.dirname(snapshot.path), p.file)) : trace;
      add(file, new vscode.Diagnostic(toRange(p.range), p.message, SEVERITY[p.severity]));
    }
    const origins = snapshot.loaded.eventOrigins;
    for (const f of snapshot.findings) {
      if (f.mode === 'ok') continue; // a sound stop is no problem: decorations and hovers show it
      const main = origins[f.events[0]];
      if (!main) continue;
      const d = new vscode.Diagnostic(toRange(main.range), `${KIND_LABEL[f.kind]}: ${f.message}`, SEVERITY[f.severity]);
      d.code = f.kind;
      d.relatedInformation = f.events
        .slice(1, MAX_RELATED + 1)
        .filter((i) => origins[i])
        .map((i) => new vscode.DiagnosticRelatedInformation(new vscode.Location(this.fileOf(snapshot, origins[i]), toRange(origins[i]!.range)), `${snapshot.loaded.trace.events[i].id} (${KIND_LABEL[f.kind]})`));
      add(this.fileOf(snapshot, main), d);
    }
    for (const old of this.published.get(snapshot.key) ?? []) if (!byFile.has(old)) this.diagnostics.delete(vscode.Uri.parse(old));
    for (const [file, list] of byFile) {
      // the first 1,000 per file and one summary of the rest (session/diagnostic-cap.ts)
      const { shown, summary } = capDiagnostics(list, (d) => ({ severity: SEVERITY_OF.get(d.severity) ?? 'info', range: fromRange(d.range) }));
      if (summary) {
        const d = new vscode.Diagnostic(toRange(summary.range), summary.message, SEVERITY[summary.severity]);
        d.source = 'otrace';
        shown.push(d);
      }
      this.diagnostics.set(vscode.Uri.parse(file), shown);
    }
    this.published.set(snapshot.key, [...byFile.keys()]);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const w of this.watchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.engine.dispose();
  }
}

const KIND_LABEL: Record<string, string> = { stop: 'stop', loop: 'loop', blame: 'blame', best_stop: 'best stop' };

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** A model range as a VS Code range (both 0-based). */
const SEVERITY_OF = new Map<vscode.DiagnosticSeverity, Problem['severity']>([
  [vscode.DiagnosticSeverity.Error, 'error'],
  [vscode.DiagnosticSeverity.Warning, 'warning'],
  [vscode.DiagnosticSeverity.Information, 'info'],
  [vscode.DiagnosticSeverity.Hint, 'info'],
]);

function fromRange(r: vscode.Range): Problem['range'] {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

export function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
