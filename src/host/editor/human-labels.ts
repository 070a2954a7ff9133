/**
 * People's labels in the editor: the sidecar `<trace>.labels.jsonl` next to a trace, read (its
 * problems in the Problems panel, at their lines of the sidecar), attached to the session's events by
 * the engine (src/engine/human-labels.ts), shown as marks after the event's first line in their own
 * colour (`otrace.humanLabelForeground`, a person's icon: apart from otrace's verdicts, which come
 * before the line in italics), and written: a new label is one line appended to the sidecar. The
 * trace itself is never opened for writing; a folder that cannot be written is an error message.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LABEL_TITLES, sidecarPath, type NewLabel } from '../../shared/label-kinds';
import type { SessionLabel, SessionLabels } from '../../engine/human-labels';
import type { SessionSummary } from '../../engine/summary';
import { messageText, plainLabel, plainText } from '../../shared/untrusted-text';
import { logged } from '../log';
import { toRange, type OpenTraces } from '../open-traces';

/** Reads, shows and writes the labels sidecars of the open traces. */
export class HumanLabels implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('otrace.humanLabelForeground'), margin: '0 0 0 2em' },
    overviewRulerColor: new vscode.ThemeColor('otrace.humanLabelForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('otrace-labels');
  /** Per session key: the labels of its latest snapshot and sidecar read. */
  private readonly cache = new Map<string, { stamp: number; read: number; labels: Promise<SessionLabels | undefined> }>();
  /** Bumped when a sidecar changes: every cached read is stale. */
  private reads = 0;
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with a session key when its labels may have changed (a label added, the sidecar changed). */
  readonly onDidChange = this.changed.event;
  /** The marks applied last, per document URI (tests read them). */
  readonly shown = new Map<string, { line: number; text: string }[]>();
  private author: Promise<string> | undefined;
  private readonly disposables: vscode.Disposable[] = [this.type, this.diagnostics, this.changed];

  constructor(private readonly sessions: OpenTraces) {
    this.disposables.push(
      sessions.onDidChange((summary) => {
        this.watch(summary);
        this.refreshAll();
      }),
      this.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
    );
    for (const summary of sessions.all()) this.watch(summary);
  }

  /** The sidecar's URI of a session. */
  sidecarOf(summary: SessionSummary): vscode.Uri {
    const trace = vscode.Uri.parse(summary.key);
    return trace.with({ path: sidecarPath(trace.path) });
  }

  /** The labels of a session's latest snapshot (read once per snapshot and sidecar change); undefined when none can be read. */
  labelsOf(summary: SessionSummary): Promise<SessionLabels | undefined> {
    const cached = this.cache.get(summary.key);
    if (cached && cached.stamp === summary.stamp && cached.read === this.reads) return cached.labels;
    const labels = this.readSidecar(summary).then((text) => (text === undefined ? { labels: [], problems: [] } : this.sessions.engine.sessionLabels(summary.key, summary.stamp, text)));
    const entry = { stamp: summary.stamp, read: this.reads, labels: labels.catch(logged(`reading the labels of ${summary.path}`)) };
    this.cache.set(summary.key, entry);
    void entry.labels.then((l) => this.diagnostics.set(this.sidecarOf(summary), l ? l.problems.map((p) => toDiagnostic(p)) : []));
    return entry.labels;
  }

  /** The labels of a session as the graph marks them: per labelled event, its labels' words (plain text). */
  async graphLabels(summary: SessionSummary): Promise<{ index: number; text: string }[]> {
    const byIndex = new Map<number, string[]>();
    for (const l of (await this.labelsOf(summary))?.labels ?? []) {
      const list = byIndex.get(l.index);
      if (list) list.push(markText(l));
      else byIndex.set(l.index, [markText(l)]);
    }
    return [...byIndex].map(([index, texts]) => ({ index, text: texts.join(' · ') }));
  }

  /** The labels on one event of a session. */
  async labelsOn(summary: SessionSummary, index: number): Promise<SessionLabel[]> {
    return ((await this.labelsOf(summary))?.labels ?? []).filter((l) => l.index === index);
  }

  /**
   * Adds a label to event `index` of a session: one line appended to its sidecar (made when there is
   * none). Resolves true when written; on a folder that cannot be written, shows why and resolves false.
   */
  async add(summary: SessionSummary, index: number, label: NewLabel): Promise<boolean> {
    const who = { author: await this.authorName(path.dirname(summary.path)), time: new Date().toISOString() };
    // the engine makes the record (the event's id, place and fingerprint) and checks it
    const line = await this.sessions.engine.newLabelLine(summary.key, summary.stamp, index, label, who);
    if (!line) {
      void vscode.window.showWarningMessage('otrace: the trace changed before the label was written; try again.');
      return false;
    }
    const sidecar = this.sidecarOf(summary);
    try {
      await appendLine(sidecar, line);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `the folder ${path.dirname(sidecar.fsPath)} is read-only (${code})` : (err as Error).message;
      void vscode.window.showErrorMessage(messageText`otrace: cannot write the label to ${path.basename(sidecar.fsPath)}: ${why}. The trace is unchanged; copy it to a folder you can write to label it.`);
      return false;
    }
    this.reads++;
    this.changed.fire(summary.key);
    return true;
  }

  /** Re-applies the label marks to every visible editor of a trace. */
  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) void this.refresh(editor);
  }

  private async refresh(editor: vscode.TextEditor): Promise<void> {
    const found = this.sessions.containing(editor.document.uri);
    if (!found) return;
    const labels = await this.labelsOf(found.summary);
    // an edit not read yet: the marks stay where VS Code moved them until the re-read
    if (found.file === '' && found.summary.version !== -1 && found.summary.version !== editor.document.version) return;
    const byLine = new Map<number, SessionLabel[]>();
    for (const l of labels?.labels ?? []) {
      if (l.file !== found.file) continue;
      const list = byLine.get(l.at.line);
      if (list) list.push(l);
      else byLine.set(l.at.line, [l]);
    }
    const options: vscode.DecorationOptions[] = [];
    const shown: { line: number; text: string }[] = [];
    for (const [line, list] of byLine) {
      const text = `👤 ${list.map(markText).join(' · ')}`;
      const at = new vscode.Position(line, Number.MAX_SAFE_INTEGER);
      // trace content (a note, an author): plain text, one clipped line
      options.push({ range: new vscode.Range(at, at), renderOptions: { after: { contentText: plainText`${plainLabel(text, 160)}` } } });
      shown.push({ line, text });
    }
    editor.setDecorations(this.type, options);
    this.shown.set(editor.document.uri.toString(), shown.sort((a, b) => a.line - b.line));
  }

  /** Follows a session's sidecar on disk (made, changed, deleted by anyone): its labels are read again. */
  private watch(summary: SessionSummary): void {
    if (this.watchers.has(summary.key)) return;
    const sidecar = this.sidecarOf(summary);
    if (sidecar.scheme !== 'file') return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(sidecar.fsPath)), path.basename(sidecar.fsPath)));
    const again = () => {
      this.reads++;
      this.changed.fire(summary.key);
    };
    this.watchers.set(summary.key, vscode.Disposable.from(watcher, watcher.onDidCreate(again), watcher.onDidChange(again), watcher.onDidDelete(again)));
  }

  /** The sidecar's text: its open document's (edits included), else the file's; undefined when there is none. */
  private async readSidecar(summary: SessionSummary): Promise<string | undefined> {
    const uri = this.sidecarOf(summary);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText();
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch (err) {
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
      throw err;
    }
  }

  /** Who labels: `git config user.name` in the trace's folder, else the OS user name. */
  private authorName(dir: string): Promise<string> {
    this.author ??= new Promise<string>((resolve) => {
      const fallback = () => {
        try {
          resolve(os.userInfo().username || 'unknown');
        } catch {
          resolve('unknown');
        }
      };
      execFile('git', ['config', 'user.name'], { cwd: dir, timeout: 3000 }, (err, stdout) => (err || !stdout.trim() ? fallback() : resolve(stdout.trim())));
    });
    return this.author;
  }

  dispose(): void {
    for (const w of this.watchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** A label's words in a mark: its title, the finding it judges, its note, and who gave it. */
export function markText(l: Pick<SessionLabel, 'label' | 'note' | 'finding' | 'author'>): string {
  const finding = l.finding ? ` (${l.finding.inline ?? l.finding.mode ?? l.finding.kind})` : '';
  const note = l.note ? `: ${l.note}` : '';
  return `${l.label === 'note' ? 'Note' : LABEL_TITLES[l.label]}${finding}${note} — ${l.author}`;
}

/** Appends one line to a file, making it when missing; never opens any other file. */
async function appendLine(uri: vscode.Uri, line: string): Promise<void> {
  if (uri.scheme === 'file') {
    // a line of its own even when the file's last line has no line break
    let before = '';
    try {
      const size = (await fs.promises.stat(uri.fsPath)).size;
      if (size > 0) {
        const handle = await fs.promises.open(uri.fsPath, 'r');
        try {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) before = '\n';
        } finally {
          await handle.close();
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await fs.promises.appendFile(uri.fsPath, `${before}${line}\n`, { encoding: 'utf8', flag: 'a' });
    return;
  }
  let old = '';
  try {
    old = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (err) {
    if (!(err instanceof vscode.FileSystemError && err.code === 'FileNotFound')) throw err;
  }
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(`${old}${old && !old.endsWith('\n') ? '\n' : ''}${line}\n`));
}

function toDiagnostic(p: SessionLabels['problems'][number]): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toRange(p.range), plainText`${p.message}`, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information);
  d.source = 'otrace labels';
  return d;
}
