/**
 * Both trace texts of a comparison marked where the runs differ (issue 28): in A's files the events
 * only in A, in B's those only in B, in both the changed and the moved ones, each with a hover
 * ("only in this run", "changed: …"), and the difference the compare panel shows outlined. Its own
 * decoration types, apart from the analysis's (verdicts, credit, loops): both can show at once.
 * Nothing here edits a document or moves the keyboard focus.
 */
import * as vscode from 'vscode';
import type { CompareDifference, CompareModel, ComparePlace, DifferenceKind } from '../../shared/compare-protocol';
import { markdownText, type MarkdownText } from '../../shared/untrusted-text';
import { toRange } from '../open-traces';

/** The run a text belongs to. */
export type RunName = 'A' | 'B';

/** One marked record: its range and what its hover says. */
interface Mark {
  range: vscode.Range;
  kind: 'onlyInA' | 'onlyInB' | 'changed' | 'moved';
  hover: MarkdownText;
  /** The difference it shows (index in the model). */
  diff: number;
}

/** Theme colors (package.json `colors`) of each kind of mark. */
const COLORS = { onlyInA: 'otrace.compare.onlyInABackground', onlyInB: 'otrace.compare.onlyInBBackground', changed: 'otrace.compare.changedBackground', moved: 'otrace.compare.movedBackground' } as const;
const RULER = { onlyInA: 'otrace.compare.onlyInAForeground', onlyInB: 'otrace.compare.onlyInBForeground', changed: 'otrace.compare.changedForeground', moved: 'otrace.compare.movedForeground' } as const;
const KINDS = ['onlyInA', 'onlyInB', 'changed', 'moved'] as const;

/** The marks of one comparison in its files, applied to every visible editor of them. */
export class CompareDecorations implements vscode.Disposable {
  private readonly types = {
    onlyInA: this.type('onlyInA'),
    onlyInB: this.type('onlyInB'),
    changed: this.type('changed'),
    moved: this.type('moved'),
    current: vscode.window.createTextEditorDecorationType({
      borderColor: new vscode.ThemeColor('otrace.compare.currentBorder'),
      borderStyle: 'solid',
      borderWidth: '1px',
      isWholeLine: true,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    }),
  };
  /** Marks by document URI (a run's trace file and its sub-agent files). */
  private marks = new Map<string, Mark[]>();
  /** The decorations of each kind per document URI, made from {@link marks} when first applied. */
  private options = new Map<string, Map<Mark['kind'], vscode.DecorationOptions[]>>();
  private current: number | undefined;
  private readonly listener: vscode.Disposable;

  /** @param fileOf the URI of a file of run A or B (`''`: its trace file). */
  constructor(private readonly fileOf: (run: RunName, file: string) => vscode.Uri) {
    this.listener = vscode.window.onDidChangeVisibleTextEditors(() => this.applyAll());
  }

  private type(kind: Mark['kind']): vscode.TextEditorDecorationType {
    return vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor(COLORS[kind]),
      isWholeLine: true,
      overviewRulerColor: new vscode.ThemeColor(RULER[kind]),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
  }

  /** Marks the differences of `model` (replacing those of an earlier one). */
  show(model: CompareModel): void {
    const marks = new Map<string, Mark[]>();
    const add = (run: RunName, place: ComparePlace | undefined, kind: Mark['kind'], hover: MarkdownText, diff: number) => {
      if (!place) return;
      const key = this.fileOf(run, place.file).toString();
      let list = marks.get(key);
      if (!list) marks.set(key, (list = []));
      list.push({ range: toRange(place.range), kind, hover, diff });
    };
    model.differences.forEach((d, k) => {
      add('A', d.placeA, markKind(d.kind), hoverOf(d, 'A'), k);
      add('B', d.placeB, markKind(d.kind), hoverOf(d, 'B'), k);
    });
    this.marks = marks;
    this.options.clear();
    this.applyAll();
  }

  /** Outlines difference `diff` in both texts (undefined: none). */
  select(diff: number | undefined): void {
    this.current = diff;
    this.applyAll();
  }

  /** The marks in a document: ranges by kind (for tests and the probe). */
  marksOf(uri: vscode.Uri): { kind: string; line: number; hover: string }[] {
    return (this.marks.get(uri.toString()) ?? []).map((m) => ({ kind: m.kind, line: m.range.start.line, hover: m.hover }));
  }

  private applyAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.apply(editor);
  }

  private apply(editor: vscode.TextEditor): void {
    const marks = this.marks.get(editor.document.uri.toString());
    if (!marks) return;
    let options = this.options.get(editor.document.uri.toString());
    if (!options) {
      // made once per file and comparison: a step only outlines another record
      options = new Map(KINDS.map((kind) => [kind, marks.filter((m) => m.kind === kind).map((m) => ({ range: m.range, hoverMessage: markdown(m.hover) }))]));
      this.options.set(editor.document.uri.toString(), options);
    }
    for (const kind of KINDS) editor.setDecorations(this.types[kind], options.get(kind)!);
    editor.setDecorations(this.types.current, marks.filter((m) => m.diff === this.current).map((m) => m.range));
  }

  /** Takes the marks off every editor and frees the types. */
  dispose(): void {
    this.listener.dispose();
    for (const t of Object.values(this.types)) t.dispose();
    this.marks.clear();
  }
}

function markKind(kind: DifferenceKind): Mark['kind'] {
  return kind === 'changed' ? 'changed' : kind === 'moved' ? 'moved' : kind === 'only_in_a' ? 'onlyInA' : 'onlyInB';
}

/** An untrusted Markdown string (no command links, no HTML). */
function markdown(text: MarkdownText): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = false;
  md.supportHtml = false;
  md.supportThemeIcons = false;
  return md;
}

/**
 * What the hover of a marked record says, in run `run`'s text: `only in this run`, `changed: …`
 * with the other run's event in words, `moved: …`.
 */
export function hoverOf(d: CompareDifference, run: RunName): MarkdownText {
  const other = run === 'A' ? 'B' : 'A';
  const otherWords = run === 'A' ? d.wordsB : d.wordsA;
  if (d.kind === 'only_in_a' || d.kind === 'only_in_b') return markdownText`**otrace compare**: only in this run (${run}); run ${other} has no such step here.`;
  if (d.kind === 'changed') return markdownText`**otrace compare**: changed: run ${other} does the same step with other content: ${otherWords ?? ''}`;
  return markdownText`**otrace compare**: moved: run ${other} does this step at another point: ${otherWords ?? ''}`;
}
