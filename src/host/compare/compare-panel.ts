/**
 * The compare panel (issue 28): two runs' lanes paired, A above B, in a webview of its own
 * (webview/compare/), with the first divergence selected on open and next/previous difference.
 * The host keeps the selection: a step or a pick in the webview comes here, and the answer goes
 * back to the webview (both events' details), to the trace texts' marks (compare-decorations.ts)
 * and to both texts, each scrolled to its record without taking the keyboard focus. No trace text
 * is ever edited.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompareHostMessage, CompareModel, ComparePlace, CompareWebviewMessage, EventDetails } from '../../shared/compare-protocol';
import { plainLabel, plainText, type PlainText } from '../../shared/untrusted-text';
import type { SessionSummary } from '../../engine/summary';
import type { OpenTraces } from '../open-traces';
import { toRange } from '../open-traces';
import { logError } from '../log';
import { revealLine } from '../editor/record-highlight';
import { CompareDecorations, type RunName } from './compare-decorations';
import { compareHtml } from './compare-html';

export const COMPARE_VIEW_TYPE = 'otrace.compare';

/** Characters of an event's content in the details pane. */
const DETAIL_CHARS = 600;

/** What a test (or the palette) can read of a compare panel. */
export interface CompareState {
  a: string;
  b: string;
  /** The difference selected (index), or -1. */
  current: number;
  differences: number;
  /** The first divergence's events (A and B indexes; null: nothing on that side). */
  first: { a: number | null; b: number | null } | undefined;
  /** The selected difference's events, and the lines (0-based) of their records. */
  selected: { a: number | null; b: number | null; lineA?: number; lineB?: number } | undefined;
  /** How many records are marked in A's and in B's trace file, and the hover of the first of each. */
  marked: { a: number; b: number; hoverA?: string; hoverB?: string };
}

/** One comparison of trace A with trace B, in its panel. */
export class ComparePanel implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private model: CompareModel | undefined;
  private summaries: { a: SessionSummary; b: SessionSummary } | undefined;
  private current = -1;
  private readonly decorations: CompareDecorations;
  private readonly disposables: vscode.Disposable[] = [];
  private readyResolve!: () => void;
  /** Settles once the model is shown and the first divergence selected (or the comparison failed). */
  readonly ready: Promise<void> = new Promise((r) => (this.readyResolve = r));
  /** Called when the panel closes. */
  onDidDispose: (() => void) | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly sessions: OpenTraces,
    readonly a: vscode.Uri,
    readonly b: vscode.Uri,
  ) {
    this.panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, panelTitle(a, b), { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
    });
    this.decorations = new CompareDecorations((run, file) => this.fileOf(run, file));
    this.panel.webview.html = compareHtml(this.panel.webview, extensionUri);
    this.disposables.push(
      this.decorations,
      this.panel.webview.onDidReceiveMessage((m: CompareWebviewMessage) => void this.receive(m).catch((err) => logError('compare panel', err))),
      this.panel.onDidDispose(() => this.dispose()),
    );
  }

  /** The state a test reads. */
  state(): CompareState {
    const d = this.model?.differences;
    const at = (k: number) => (d && d[k] ? { a: d[k].a, b: d[k].b } : undefined);
    const sel = d?.[this.current];
    const selected = sel && { a: sel.a, b: sel.b, ...(sel.placeA ? { lineA: sel.placeA.range.start.line } : {}), ...(sel.placeB ? { lineB: sel.placeB.range.start.line } : {}) };
    const ma = this.decorations.marksOf(this.fileOf('A', ''));
    const mb = this.decorations.marksOf(this.fileOf('B', ''));
    const marked = { a: ma.length, b: mb.length, ...(ma[0] ? { hoverA: ma[0].hover } : {}), ...(mb[0] ? { hoverB: mb[0].hover } : {}) };
    return { a: this.a.toString(), b: this.b.toString(), current: this.current, differences: d?.length ?? 0, first: at(0), selected, marked };
  }

  /** The marks in a document's text (tests). */
  marksOf(uri: vscode.Uri): { kind: string; line: number; hover: string }[] {
    return this.decorations.marksOf(uri);
  }

  private async receive(m: CompareWebviewMessage): Promise<void> {
    if (m.type === 'ready') await this.compare();
    else if (m.type === 'step') await this.step(m.direction);
    else if (m.type === 'pick') await this.pick(m.lanes, m.column);
  }

  private post(m: CompareHostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  /** Reads both traces, compares them in the engine, shows the result and selects the first divergence. */
  private async compare(): Promise<void> {
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const [a, b] = await Promise.all([this.sessions.forUri(this.a), this.sessions.forUri(this.b)]);
        if (!a || !b) return this.fail(`otrace could not read ${!a ? path.basename(this.a.fsPath) : path.basename(this.b.fsPath)} as a trace.`);
        const answer = await this.sessions.engine.compareSessions(a.key, a.stamp, b.key, b.stamp);
        if (!answer) continue; // a newer version of one of them was read meanwhile: ask again
        if ('error' in answer) return this.fail(`otrace could not compare the runs: ${answer.error}`);
        this.summaries = { a, b };
        this.model = answer;
        this.post({ type: 'model', model: answer, files: { a: plainLabel(vscode.workspace.asRelativePath(this.a), 300), b: plainLabel(vscode.workspace.asRelativePath(this.b), 300) } });
        this.decorations.show(answer);
        if (answer.differences.length > 0) await this.select(0);
        return;
      }
      this.fail('otrace could not compare the runs: they kept changing while being read.');
    } finally {
      this.readyResolve();
    }
  }

  private fail(message: string): void {
    this.post({ type: 'error', message: plainLabel(message, 500) });
  }

  /** Selects the next (1) or previous (−1) difference, going round at the ends as VS Code's diff editor does. */
  async step(direction: 1 | -1): Promise<void> {
    const n = this.model?.differences.length ?? 0;
    if (n === 0) return;
    const next = this.current < 0 ? (direction > 0 ? 0 : n - 1) : (this.current + direction + n) % n;
    await this.select(next);
  }

  /** Selects the difference a column shows, or a column of the same step on both sides. */
  private async pick(lanes: number, column: number): Promise<void> {
    const col = this.model?.lanes[lanes]?.columns[column];
    if (!col) return;
    if (col.diff !== undefined) return this.select(col.diff);
    // a step both runs do: shown, and next/previous difference go on from the difference selected before
    this.decorations.select(undefined);
    const details = await this.details(col.a ?? null, col.b ?? null);
    this.post({ type: 'select', diff: -1, lanes, column, details });
    await this.reveal(col.a !== undefined ? await this.placeOf('A', col.a) : undefined, col.b !== undefined ? await this.placeOf('B', col.b) : undefined);
  }

  /** Selects difference `k`: the webview shows it with both events, both texts outline and show its records. */
  private async select(k: number): Promise<void> {
    const d = this.model?.differences[k];
    if (!d) return;
    this.current = k;
    this.decorations.select(k);
    const details = await this.details(d.a, d.b);
    if (this.current !== k) return; // another step came meanwhile
    this.post({ type: 'select', diff: k, lanes: d.lanes, column: d.column, details });
    // a step of one run only: the other run's text shows where that run is at this point (its nearest event in the lane pair)
    const near = async (run: RunName) => {
      const index = this.nearest(d.lanes, d.column, run);
      return index === undefined ? undefined : this.placeOf(run, index);
    };
    await this.reveal(d.placeA ?? (d.a === null ? await near('A') : undefined), d.placeB ?? (d.b === null ? await near('B') : undefined));
  }

  /** The event of run `run` in the column of lane pair `lanes` nearest to `column` (before it first), if any. */
  private nearest(lanes: number, column: number, run: RunName): number | undefined {
    const cols = this.model?.lanes[lanes]?.columns;
    if (!cols || column < 0) return undefined;
    const of = (x: number) => (run === 'A' ? cols[x]?.a : cols[x]?.b);
    for (let k = 1; k < cols.length; k++) {
      const before = of(column - k);
      if (before !== undefined) return before;
      const after = of(column + k);
      if (after !== undefined) return after;
    }
    return undefined;
  }

  /**
   * The run's session now: the one compared, or the one read since (the same file opened in an
   * editor is read again from its text: the same events, a new stamp).
   */
  private async summaryOf(run: RunName): Promise<SessionSummary | undefined> {
    return (await this.sessions.forUri(run === 'A' ? this.a : this.b)) ?? (run === 'A' ? this.summaries?.a : this.summaries?.b);
  }

  private async placeOf(run: RunName, index: number): Promise<ComparePlace | undefined> {
    const s = await this.summaryOf(run);
    const p = s && (await this.sessions.engine.eventPlace(s.key, s.stamp, index));
    return p && { file: p.file, range: p.range };
  }

  private async details(a: number | null, b: number | null): Promise<{ a?: EventDetails; b?: EventDetails }> {
    const one = async (run: RunName, index: number | null): Promise<EventDetails | undefined> => {
      const s = index === null ? undefined : await this.summaryOf(run);
      if (!s || index === null) return undefined;
      const info = await this.sessions.engine.eventInfo(s.key, s.stamp, index);
      if (!info) return undefined;
      const file = info.file ? info.file : path.basename(s.path);
      return {
        index,
        id: plainLabel(info.id, 120),
        type: plainLabel(info.type, 60),
        agent: plainLabel(info.agent, 120),
        where: plainLabel(`${file}:${info.range.start.line + 1}`, 300),
        content: plainLabel(info.contentHead ?? '', DETAIL_CHARS),
        t: info.countsSteps ? `step ${info.t}` : `${Math.round(info.t * 1000) / 1000} s`,
      };
    };
    const [da, db] = await Promise.all([one('A', a), one('B', b)]);
    return { ...(da ? { a: da } : {}), ...(db ? { b: db } : {}) };
  }

  /** The URI of a file of run A or B (`''`: its trace file). */
  private fileOf(run: RunName, file: string): vscode.Uri {
    const s = run === 'A' ? this.summaries?.a : this.summaries?.b;
    if (!s) return run === 'A' ? this.a : this.b;
    return this.sessions.fileOf(s, file);
  }

  /**
   * Scrolls each run's text to its record: in an editor that shows the file already, else in one
   * opened beside the panel (A in the next column, B in the one after), never taking the focus.
   */
  private async reveal(placeA: ComparePlace | undefined, placeB: ComparePlace | undefined): Promise<void> {
    const base = this.panel.viewColumn ?? vscode.ViewColumn.One;
    for (const [run, place, column] of [['A', placeA, base + 1], ['B', placeB, base + 2]] as const) {
      if (!place) continue;
      const uri = this.fileOf(run, place.file);
      const range = toRange(place.range);
      try {
        let editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
        editor ??= await vscode.window.showTextDocument(uri, { viewColumn: column, preserveFocus: true, preview: false });
        // at column 0: a record's whole range would scroll a long line sideways (its end in view, its start not)
        revealLine(editor, range.start.line, false);
      } catch (err) {
        logError(`showing ${uri.toString()}`, err); // a file too large for a text editor: the panel still shows the difference
      }
    }
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const d = this.disposables.splice(0);
    for (const x of d) x.dispose();
    this.panel.dispose();
    this.onDidDispose?.();
  }
}

/** `Compare: a.jsonl ↔ b.jsonl` (plain text: file names are untrusted). */
export function panelTitle(a: vscode.Uri, b: vscode.Uri): PlainText {
  return plainText`Compare: ${path.basename(a.fsPath)} ↔ ${path.basename(b.fsPath)}`;
}
