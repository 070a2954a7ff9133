/**
 * One cached parse per open trace: detects trace files by content, reads them with the shared
 * readers, and publishes their problems to the Problems panel.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { detectFormat, loadTrace } from '../trace/formats';
import type { LoadedTrace, Problem } from '../trace/model';
import { nodeFileAccess } from '../trace/node-files';

const TRACE_NAME = /\.otrace\.jsonl?$/;

/** A loaded trace and the document version it was read from. */
interface Session {
  version: number;
  loaded: LoadedTrace;
}

/** Caches loaded traces by URI and keeps their diagnostics up to date. */
export class TraceSessions implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('otrace');
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires with a trace's URI after it was read again. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this.changed];

  constructor() {
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.refresh(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.refresh(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
    );
    for (const d of vscode.workspace.textDocuments) this.refresh(d);
  }

  /** True when the document is a trace file: by name, or (JSON/JSONL) by content. */
  isTrace(document: vscode.TextDocument): boolean {
    if (TRACE_NAME.test(document.fileName)) return true;
    if (!['json', 'jsonl', 'jsonc'].includes(document.languageId) && !/\.jsonl?$/.test(document.fileName)) return false;
    if (!vscode.workspace.getConfiguration('otrace').get<boolean>('detectByContent', true)) return false;
    const head = document.getText(new vscode.Range(0, 0, Math.min(document.lineCount, 50), 0));
    return detectFormat(head, document.fileName) !== undefined;
  }

  /** The loaded trace of an open document (read now if its version changed), or undefined if it is no trace. */
  forDocument(document: vscode.TextDocument): LoadedTrace | undefined {
    const key = document.uri.toString();
    const cached = this.sessions.get(key);
    if (cached && cached.version === document.version) return cached.loaded;
    if (!this.isTrace(document)) return undefined;
    const loaded = loadTrace(document.getText(), document.uri.fsPath, document.uri.scheme === 'file' ? nodeFileAccess : undefined);
    this.sessions.set(key, { version: document.version, loaded });
    this.publish(document.uri, loaded.problems);
    return loaded;
  }

  /** The loaded trace of a file, from its open document when there is one, else read from disk. */
  async forUri(uri: vscode.Uri): Promise<LoadedTrace> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const fromDocument = open && this.forDocument(open);
    if (fromDocument) return fromDocument;
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const loaded = loadTrace(text, uri.fsPath, uri.scheme === 'file' ? nodeFileAccess : undefined);
    this.publish(uri, loaded.problems);
    return loaded;
  }

  private refresh(document: vscode.TextDocument): void {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'untitled' && document.uri.scheme !== 'vscode-remote') return;
    const before = this.sessions.get(document.uri.toString())?.version;
    const loaded = this.forDocument(document);
    if (loaded && before !== document.version) this.changed.fire(document.uri);
  }

  private forget(uri: vscode.Uri): void {
    this.sessions.delete(uri.toString());
  }

  /** Problems become diagnostics on the file they are in (a sub-agent file may have its own). */
  private publish(uri: vscode.Uri, problems: readonly Problem[]): void {
    const byFile = new Map<string, vscode.Diagnostic[]>([[uri.toString(), []]]);
    for (const p of problems) {
      const target = p.file ? vscode.Uri.file(path.resolve(path.dirname(uri.fsPath), p.file)).toString() : uri.toString();
      const list = byFile.get(target) ?? [];
      const d = new vscode.Diagnostic(toRange(p.range), p.message, SEVERITY[p.severity]);
      d.source = 'otrace';
      list.push(d);
      byFile.set(target, list);
    }
    for (const [file, list] of byFile) this.diagnostics.set(vscode.Uri.parse(file), list);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** A model range as a VS Code range (both 0-based). */
export function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
