/**
 * The mapping files the editor reads traces with (docs/mapping.md, "In VS Code"): those named in the
 * `otrace.mappings` setting (glob -> mapping file path; relative paths start at a workspace folder,
 * `~` is the home folder in a user setting) and every `*.otrace-map.json` in the workspace. Each is
 * read as data only, its problems go to the Problems panel at their place in the mapping file, and a
 * change to a mapping file (saved, or typed in an open editor), to the setting or to the workspace's
 * trust fires {@link MappingFiles.onDidChange} with the paths whose role changed, so the open traces
 * they affect are read again (src/host/open-traces.ts).
 *
 * What the workspace supplies stays in the workspace (src/host/editor/mapping-plan.ts): its mapping files
 * and its values of the setting are read only inside it and read only trace files inside it; in
 * Restricted Mode they are not used at all (said once per window), and user settings still apply.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TraceEngine } from '../../engine/trace-engine';
import type { MappingInput, MappingReport } from '../../engine/worker-protocol';
import { messageText, plainLabel, plainText } from '../../shared/untrusted-text';
import { planMappings, type MappingPlan, type RefusedEntry } from './mapping-plan';
import { logged } from '../log';

/** Glob of the mapping files found in the workspace. */
export const MAPPING_GLOB = '**/*.otrace-map.json';
/** Most workspace mapping files read (a workspace with more is unusual; the rest are ignored). */
const MAX_FILES = 200;
/** Wait this long after the last change before reading the mapping files again (ms). */
const DEBOUNCE_MS = 300;

/** What the trace sessions need of the mapping files. */
export interface MappingProvider {
  /** The mapping sources in precedence order: settings-named first, then workspace ones by path (as the engine read them). */
  sources(): readonly MappingReport[];
  /** Fires with the paths of mapping files whose content, glob or role changed (added and removed ones too). */
  readonly onDidChange: vscode.Event<ReadonlySet<string>>;
}

/** Reads, checks and watches the mapping files of the workspace and the settings. */
export class MappingFiles implements MappingProvider, vscode.Disposable {
  private current: MappingReport[] = [];
  /** Signature of each source (where it applies, its text) of the last read, by `origin path glob`. */
  private signatures = new Map<string, string>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('otrace-mappings');
  private readonly changed = new vscode.EventEmitter<ReadonlySet<string>>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this.changed];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Watchers of settings-named mapping files (those outside the workspace are not under the glob watcher). */
  private readonly namedWatchers = new Map<string, vscode.Disposable>();
  private running: Promise<void> = Promise.resolve();
  /** Settles after the first read of the mapping files. */
  readonly ready: Promise<void>;

  /** @param engine reads the mapping files (the host only finds them and reads their text). */
  constructor(private readonly engine: Pick<TraceEngine, 'configure'>) {
    const watcher = vscode.workspace.createFileSystemWatcher(MAPPING_GLOB);
    const later = () => this.refreshLater();
    this.disposables.push(
      watcher,
      watcher.onDidCreate(later),
      watcher.onDidChange(later),
      watcher.onDidDelete(later),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('otrace.mappings')) later();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(later),
      vscode.workspace.onDidGrantWorkspaceTrust(later),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.isMappingPath(e.document.uri.fsPath)) later();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (this.isMappingPath(d.uri.fsPath) && d.isDirty) later(); // closed without saving: the file on disk counts again
      }),
    );
    this.ready = this.refresh();
  }

  sources(): readonly MappingReport[] {
    return this.current;
  }

  /** Reads the mapping files again now (the watchers call it, debounced). */
  refresh(): Promise<void> {
    this.running = this.running.then(() => this.read()).catch(logged('reading the mapping files'));
    return this.running;
  }

  private refreshLater(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), DEBOUNCE_MS);
  }

  private isMappingPath(p: string): boolean {
    return p.endsWith('.otrace-map.json') || this.current.some((s) => s.path === p);
  }

  private async read(): Promise<void> {
    const found = (await vscode.workspace.findFiles(MAPPING_GLOB, '**/node_modules/**', MAX_FILES)).filter((u) => u.scheme === 'file').map((u) => u.fsPath).sort();
    const inspected = vscode.workspace.getConfiguration('otrace').inspect<unknown>('mappings');
    const open = new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath));
    const plan = planMappings({
      setting: { user: inspected?.globalValue, workspace: inspected?.workspaceFolderValue ?? inspected?.workspaceValue },
      folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
      trusted: vscode.workspace.isTrusted,
      found,
      home: os.homedir(),
      isOpen: (p) => open.has(p),
    });
    this.tell(plan);
    this.watchNamed(new Set(plan.read.filter((r) => r.origin === 'setting').map((r) => r.file)));
    const texts = new Map<string, string | Error>();
    const textOf = async (p: string): Promise<string | Error> => {
      if (!texts.has(p)) texts.set(p, await readText(p));
      return texts.get(p)!;
    };
    const inputs: MappingInput[] = [];
    for (const { file, origin, glob, within } of plan.read) inputs.push({ ...inputOf(file, await textOf(file), origin, glob), within });
    const next = await this.engine.configure(inputs);
    this.outside = plan.outside;
    const signatures = new Map<string, string>();
    next.forEach((source, i) => {
      const { text, within } = inputs[i];
      signatures.set(`${source.origin} ${source.path} ${source.glob ?? ''}`, `${within?.join('\0') ?? '*'}\n${typeof text === 'string' ? text : text.error}`);
    });
    const changedPaths = new Set<string>();
    for (const [key, sig] of signatures) if (this.signatures.get(key) !== sig) changedPaths.add(pathOfKey(key));
    for (const key of this.signatures.keys()) if (!signatures.has(key)) changedPaths.add(pathOfKey(key));
    this.signatures = signatures;
    this.current = next;
    this.publish(next);
    if (changedPaths.size) this.changed.fire(changedPaths);
  }

  /** Keeps one watcher per settings-named mapping file, and none for files no longer named. */
  private watchNamed(files: Set<string>): void {
    for (const [file, w] of this.namedWatchers) {
      if (files.has(file)) continue;
      w.dispose();
      this.namedWatchers.delete(file);
    }
    for (const file of files) {
      if (this.namedWatchers.has(file)) continue;
      this.namedWatchers.set(file, watchFile(file, () => this.refreshLater()));
    }
  }

  /** Workspace mapping files that link outside the workspace (not read; a warning on each). */
  private outside: readonly string[] = [];
  /** True once Restricted Mode was said (once per window). */
  private saidRestricted = false;
  /** The refused setting entries last said (said again only when they change). */
  private saidRefused = '';

  /** Says once what Restricted Mode leaves out, and which setting entries are not used and why. */
  private tell(plan: MappingPlan): void {
    if (plan.restricted && !this.saidRestricted) {
      this.saidRestricted = true;
      const { files, settings } = plan.restricted;
      void vscode.window
        .showInformationMessage(
          messageText`otrace: this workspace is in Restricted Mode, so its mapping files (${files}) and its otrace.mappings values (${settings}) are not used; your user settings still apply. Trust the workspace to use them.`,
          'Manage Workspace Trust',
        )
        .then((pick) => pick && vscode.commands.executeCommand('workbench.trust.manage'));
    }
    const refused = JSON.stringify(plan.refused);
    if (refused === this.saidRefused) return;
    this.saidRefused = refused;
    if (!plan.refused.length) return;
    const [first] = plan.refused;
    const others = plan.refused.length - 1;
    void vscode.window.showWarningMessage(
      others
        ? messageText`otrace: ${others + 1} otrace.mappings entries are not used; the first, for "${plainLabel(first.glob, 60)}": ${refusedWhy(first)}`
        : messageText`otrace: the otrace.mappings entry for "${plainLabel(first.glob, 60)}" is not used: ${refusedWhy(first)}`,
    );
  }

  /** Each mapping file's problems on that file (a file named twice is shown once). */
  private publish(sources: MappingReport[]): void {
    this.diagnostics.clear();
    for (const file of this.outside) {
      const d = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), OUTSIDE_MESSAGE, vscode.DiagnosticSeverity.Warning);
      d.source = 'otrace mapping';
      this.diagnostics.set(vscode.Uri.file(file), [d]);
    }
    const done = new Set<string>();
    for (const s of sources) {
      if (done.has(s.path)) continue;
      done.add(s.path);
      const list = s.problems.map((p) => {
        const d = new vscode.Diagnostic(new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character), plainText`${p.message}`, SEVERITY[p.severity]);
        d.source = 'otrace mapping';
        return d;
      });
      this.diagnostics.set(vscode.Uri.file(s.path), list);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const w of this.namedWatchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

const SEVERITY = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
} as const;

/** The path part of a signature key (`origin path glob`; paths may hold spaces, globs too). */
function pathOfKey(key: string): string {
  return key.slice(key.indexOf(' ') + 1, key.lastIndexOf(' '));
}

/** The Problems message on a workspace mapping file that is a link to a file outside the workspace. */
const OUTSIDE_MESSAGE = plainText`this mapping file is a symbolic link to a file outside the workspace, so it is not read: a workspace's mapping files stay inside it`;

/** A glob as said in a message: at most 60 characters. */
/** Why a setting entry is not used (otrace's own words). */
function refusedWhy(entry: RefusedEntry): string {
  if (entry.reason === 'glob') return `its glob is refused: ${entry.detail}`;
  return 'the workspace setting names a mapping file outside the workspace; only your user settings may';
}

/**
 * Watches one file, through its folder, so that creating, changing, deleting or replacing it calls `onChange`.
 * Node's fs.watch is listening when it returns; VS Code's watcher starts asynchronously, and a change made
 * just after the first read of a settings-named mapping file was lost until the next one. VS Code's watcher
 * stays the fallback for a folder fs.watch cannot watch (missing, or no inotify left).
 * @param file absolute path of the file to watch.
 * @param onChange called (possibly several times per change; callers debounce) on any event for the file.
 * @returns a disposable that stops watching. Never throws.
 */
function watchFile(file: string, onChange: () => void): vscode.Disposable {
  const name = path.basename(file);
  try {
    const watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, changed) => {
      if (!changed || changed.toString() === name) onChange();
    });
    watcher.on('error', () => watcher.close());
    return new vscode.Disposable(() => watcher.close());
  } catch {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), name));
    return vscode.Disposable.from(w, w.onDidCreate(onChange), w.onDidChange(onChange), w.onDidDelete(onChange));
  }
}

/** The text of a mapping file: an open editor's (unsaved edits count), else the file on disk. */
async function readText(p: string): Promise<string | Error> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === p);
  if (open) return open.getText();
  try {
    return await fs.promises.readFile(p, 'utf8');
  } catch (err) {
    return new Error(plainText`cannot read ${p}: ${(err as Error).message}`);
  }
}

/** What the engine reads of a mapping file: its text (or the error reading it) and how it is named. */
function inputOf(file: string, text: string | Error, origin: MappingInput['origin'], glob?: string): MappingInput {
  return { path: file, text: text instanceof Error ? { error: text.message } : text, origin, glob };
}
