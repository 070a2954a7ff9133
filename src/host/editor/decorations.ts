/**
 * Inline analysis in the trace text: one combined mark per event at the start of its range
 * (gutter icon + a short `before` text in a theme colour), loop members highlighted with
 * overview-ruler marks. The engine computes the marks of a file (src/engine/marks.ts); they are
 * kept per session version and applied to the visible lines only (plus a margin), refreshed when
 * the session changes, the view scrolls, a
 * setting changes or "otrace: Toggle Inline Analysis" runs. Sub-agent files are decorated from the
 * session that contains them.
 */
import * as vscode from 'vscode';
import type { SessionSummary } from '../../engine/summary';
import { marksInLines, MARK_CATEGORIES, type FileMarks, type MarkCategory, type MarkOptions } from '../../engine/event-marks';
import { plainText } from '../../shared/untrusted-text';
import type { OpenTraces } from '../open-traces';
import { toRange } from '../open-traces';
import { logged } from '../log';

/** Lines decorated above and below the visible ones, so scrolling shows marks at once. */
const MARGIN_LINES = 100;

/** Decoration type of the readable record labels (`otrace.transcriptLabels`). */
export const LABEL_TYPE = 'recordLabel';

/** Colour id (contributed in package.json) and gutter icon of each category. */
const STYLE: Record<MarkCategory, { color: string; icon: string }> = {
  blame: { color: 'otrace.blameForeground', icon: 'blame' },
  blameWarning: { color: 'otrace.blameWarningForeground', icon: 'blame-warning' },
  stopProblem: { color: 'otrace.stopProblemForeground', icon: 'stop-problem' },
  loop: { color: 'otrace.loopForeground', icon: 'loop' },
  stop: { color: 'otrace.stopForeground', icon: 'stop' },
  bestStop: { color: 'otrace.bestStopForeground', icon: 'best-stop' },
  creditPositiveStrong: { color: 'otrace.creditPositiveStrongForeground', icon: 'credit-positive' },
  creditPositive: { color: 'otrace.creditPositiveForeground', icon: 'credit-positive' },
  creditNegativeStrong: { color: 'otrace.creditNegativeStrongForeground', icon: 'credit-negative' },
  creditNegative: { color: 'otrace.creditNegativeForeground', icon: 'credit-negative' },
};

/** What one `setDecorations` call applied, as the test hook records it. */
export interface AppliedDecorations {
  /** Decoration type: a mark category, `loopRange`, or {@link LABEL_TYPE}. */
  type: string;
  ranges: { line: number; character: number; endLine: number; endCharacter: number; text?: string }[];
  /** Milliseconds the `setDecorations` call took. */
  ms: number;
}

/** Receives every `setDecorations` call (tests only): the editor's document URI and what was applied. */
export type DecorationProbe = (uri: string, applied: AppliedDecorations) => void;

/** Applies the decoration model to the visible trace editors. */
export class TraceDecorator implements vscode.Disposable {
  private readonly types: Map<string, vscode.TextEditorDecorationType>;
  private readonly disposables: vscode.Disposable[] = [];
  /** Marks asked of the engine, per session summary, by file and options. */
  private readonly cache = new WeakMap<SessionSummary, Map<string, Promise<FileMarks | undefined>>>();
  /** The latest refresh of each editor (an older one finishing later must not apply its marks). */
  private readonly latest = new WeakMap<vscode.TextEditor, number>();
  private refreshes = 0;
  private readonly scrollTimers = new Map<vscode.TextEditor, ReturnType<typeof setTimeout>>();
  /** Off after "otrace: Toggle Inline Analysis" until it runs again. */
  private enabled = true;
  /** Set by tests to see what was applied. */
  probe: DecorationProbe | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly sessions: OpenTraces,
  ) {
    this.types = new Map(
      MARK_CATEGORIES.map((c) => [
        c,
        vscode.window.createTextEditorDecorationType({
          gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', 'gutter', `${STYLE[c].icon}.svg`),
          gutterIconSize: '80%',
          before: { color: new vscode.ThemeColor(STYLE[c].color), margin: '0 0.6em 0 0', fontStyle: 'italic' },
          overviewRulerColor: c === 'blame' || c === 'blameWarning' || c === 'stopProblem' ? new vscode.ThemeColor(STYLE[c].color) : undefined,
          overviewRulerLane: vscode.OverviewRulerLane.Right,
          rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        }),
      ]),
    );
    // readable labels of transcript records: dimmed, before the raw JSON; no gutter or ruler mark
    this.types.set(
      LABEL_TYPE,
      vscode.window.createTextEditorDecorationType({
        before: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 1em 0 0' },
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
    );
    this.types.set(
      'loopRange',
      vscode.window.createTextEditorDecorationType({
        backgroundColor: new vscode.ThemeColor('otrace.loopBackground'),
        overviewRulerColor: new vscode.ThemeColor('otrace.loopForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Center,
        isWholeLine: false,
      }),
    );
    this.disposables.push(
      ...this.types.values(),
      sessions.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => this.refreshSoon(e.textEditor)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('otrace.decorations') || e.affectsConfiguration('otrace.transcriptLabels')) this.refreshAll();
      }),
    );
    this.refreshAll();
  }

  /** Turns inline analysis off or on for every editor; returns the new state. */
  toggle(): boolean {
    this.enabled = !this.enabled;
    this.refreshAll();
    return this.enabled;
  }

  /** Re-applies the marks to every visible editor. */
  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) void this.refresh(editor);
  }

  private refreshSoon(editor: vscode.TextEditor): void {
    clearTimeout(this.scrollTimers.get(editor));
    this.scrollTimers.set(
      editor,
      setTimeout(() => {
        this.scrollTimers.delete(editor);
        void this.refresh(editor);
      }, 30),
    );
  }

  /**
   * Applies the marks of the editor's file (the trace or one of its sub-agent files) and the
   * readable labels of its records, visible lines only (plus a margin): the engine answers the labels
   * of those lines alone, so a trace of any size costs the same per scroll.
   */
  async refresh(editor: vscode.TextEditor): Promise<void> {
    const run = ++this.refreshes;
    this.latest.set(editor, run);
    await this.sessions.forDocument(editor.document).catch(logged(`reading ${editor.document.fileName} for its decorations`));
    const found = this.sessions.containing(editor.document.uri);
    const lines = editor.visibleRanges.map((r) => ({ start: Math.max(0, r.start.line - MARGIN_LINES), end: r.end.line + MARGIN_LINES }));
    const [fileMarks, labels] = await Promise.all([
      found && this.enabled ? this.marksOf(found.summary, found.file) : undefined,
      found && labelsOn() ? this.sessions.engine.recordLabels(found.summary.key, found.summary.stamp, found.file, lines).catch(logged(`labelling the records of ${editor.document.fileName}`)) : undefined,
    ]);
    if (this.latest.get(editor) !== run) return;
    if (!found || (!fileMarks && !labels)) {
      for (const key of this.types.keys()) this.apply(editor, key, []);
      return;
    }
    // An edit not read yet: keep the marks VS Code already moved with the text until the re-read.
    if (found.file === '' && found.summary.version !== -1 && found.summary.version !== editor.document.version) return;
    const byCategory = new Map<string, vscode.DecorationOptions[]>([...this.types.keys()].map((k) => [k, []]));
    // trace content: the engine made each label one clipped line; the tag shows any control character left
    byCategory.set(LABEL_TYPE, (labels ?? []).map((l) => ({ range: toRange({ start: l.at, end: l.at }), renderOptions: { before: { contentText: plainText`${l.text}` } } })));
    if (!fileMarks) {
      for (const [key, options] of byCategory) this.apply(editor, key, options);
      return;
    }
    for (const m of marksInLines(fileMarks.marks, lines)) {
      const at = new vscode.Position(m.at.line, m.at.character);
      byCategory.get(m.category)!.push({ range: new vscode.Range(at, at), renderOptions: { before: { contentText: plainText`${m.text}` } } });
    }
    const loopRanges = fileMarks.loopRanges.filter((r) => lines.some((l) => r.end.line >= l.start && r.start.line <= l.end));
    byCategory.set('loopRange', loopRanges.map((r) => ({ range: toRange(r) })));
    for (const [key, options] of byCategory) this.apply(editor, key, options);
  }

  /** The marks of one file of a session, asked of the engine once per session version, file and options. */
  private marksOf(summary: SessionSummary, file: string): Promise<FileMarks | undefined> {
    const options = markOptions();
    const key = `${file}\n${options.stops} ${options.credit} ${options.loops}`;
    let byKey = this.cache.get(summary);
    if (!byKey) this.cache.set(summary, (byKey = new Map()));
    let marks = byKey.get(key);
    if (!marks) byKey.set(key, (marks = this.sessions.engine.fileMarks(summary.key, summary.stamp, file, options).catch(logged(`asking the engine for the marks of ${file || summary.path}`))));
    return marks;
  }

  private apply(editor: vscode.TextEditor, key: string, options: vscode.DecorationOptions[]): void {
    const started = performance.now();
    editor.setDecorations(this.types.get(key)!, options);
    const ms = performance.now() - started;
    this.probe?.(editor.document.uri.toString(), {
      type: key,
      ms,
      ranges: options.map((o) => ({
        line: o.range.start.line,
        character: o.range.start.character,
        endLine: o.range.end.line,
        endCharacter: o.range.end.character,
        text: o.renderOptions?.before?.contentText,
      })),
    });
  }

  dispose(): void {
    for (const t of this.scrollTimers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

/** The `otrace.transcriptLabels` setting: readable labels on the records of Claude Code and Codex transcripts. */
function labelsOn(): boolean {
  return vscode.workspace.getConfiguration('otrace').get('transcriptLabels', true);
}

/** The `otrace.decorations.*` settings. */
function markOptions(): MarkOptions {
  const c = vscode.workspace.getConfiguration('otrace.decorations');
  return { stops: c.get('stops', true), credit: c.get('credit', true), loops: c.get('loops', true) };
}
