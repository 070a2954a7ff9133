/**
 * How an event's record is shown in a text editor (Show in Trace File, follow in editor, Show
 * Events, Go to Source Prompt): the cursor at the record's start and a background over the record,
 * never a selection of it. A selected record is replaced by the next key typed in that editor, and
 * VS Code (or code-server's auto save) writes it to disk: a user's trace lost a record that way.
 * The background goes when the user moves the cursor (keyboard or mouse) in that editor.
 */
import * as vscode from 'vscode';

/** The background over the record shown, one per window; disposed with the extension. */
export class RecordHighlight implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: true,
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly cleared = vscode.window.onDidChangeTextEditorSelection((e) => {
    if (e.kind === vscode.TextEditorSelectionChangeKind.Keyboard || e.kind === vscode.TextEditorSelectionChangeKind.Mouse) {
      e.textEditor.setDecorations(this.type, []);
      this.shaded.delete(e.textEditor.document.uri.toString());
    }
  });

  /**
   * Puts `editor`'s cursor at the start of `range` (an empty selection) and the background over the
   * lines of `range`; reveals its first line (centred when `center`, else only when out of view).
   */
  show(editor: vscode.TextEditor, range: vscode.Range, center = true): void {
    this.clear(editor); // one record shaded in the window: the event shown, never an earlier one in another file
    moveCursor(editor, range.start);
    editor.setDecorations(this.type, [range]);
    this.shaded.set(editor.document.uri.toString(), range);
    revealLine(editor, range.start.line, center);
  }

  /** Takes the shading off every visible editor but `except` (the event shown is in a file no editor shows). */
  clear(except?: vscode.TextEditor): void {
    for (const e of vscode.window.visibleTextEditors) if (e.document !== except?.document) e.setDecorations(this.type, []);
    for (const uri of [...this.shaded.keys()]) if (uri !== except?.document.uri.toString()) this.shaded.delete(uri);
  }

  /** The records shaded now, by document URI (tests read it: a decoration cannot be read back from VS Code). */
  readonly shaded = new Map<string, vscode.Range>();

  dispose(): void {
    this.cleared.dispose();
    this.type.dispose();
  }
}

/**
 * Scrolls `editor` to `line` (centred when `center`, else only when out of view) at its left edge.
 * Revealing the cursor itself scrolled a narrow editor sideways: the cursor sits after the record's
 * label (text drawn before the record) and, in a JSON document, after the record's indent, and the
 * editor scrolled until that point showed, cutting off the labels and the start of every line (773 px
 * for a Who&When record). Column 0 alone is drawn after the label too: a label wider than the
 * editor (650 px in a narrow one beside the graph) scrolled the text as far. So the range revealed
 * spans two lines: VS Code scrolls a range of more than one line to its left edge (viewLines.ts
 * `_computeScrollLeftToReveal`), the label and every line's start in view.
 */
export function revealLine(editor: vscode.TextEditor, line: number, center: boolean): void {
  const last = editor.document.lineCount - 1;
  const range = line < last ? new vscode.Range(line, 0, line + 1, 0) : line > 0 ? new vscode.Range(line - 1, 0, line, 0) : new vscode.Range(line, 0, line, 0);
  editor.revealRange(range, center ? vscode.TextEditorRevealType.InCenter : vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/**
 * Cursor moves otrace made (follow in editor, Show in Trace File, Open Source Prompt from the graph),
 * by document URI, oldest first: the selection event each causes comes back later (seconds later on
 * a busy machine) and must not select the event under that cursor in the graph. Read back as the
 * user's choice, a late one moved the graph back to an event stepped past (fast steps jumped back
 * and forth for seconds), and Open Source Prompt's took the graph off the event the user looked at.
 */
const ownMoves = new Map<string, string[]>();

/** Moves remembered per document: more than the steps whose selection events can be on their way. */
const OWN_MOVES_KEPT = 64;

const positionKey = (at: vscode.Position) => `${at.line}:${at.character}`;

/** Says that the cursor of `uri`'s editor is being moved to `at` by otrace (see {@link isOwnMove}). */
export function markOwnMove(uri: vscode.Uri, at: vscode.Position): void {
  const key = uri.toString();
  const list = ownMoves.get(key) ?? [];
  list.push(positionKey(at));
  if (list.length > OWN_MOVES_KEPT) list.shift();
  ownMoves.set(key, list);
}

/** Puts `editor`'s cursor at `at` (an empty selection), marked as otrace's own move. */
export function moveCursor(editor: vscode.TextEditor, at: vscode.Position): void {
  markOwnMove(editor.document.uri, at);
  editor.selection = new vscode.Selection(at, at);
}

/**
 * True when a selection change of `editor` to `at` is the echo of a move {@link markOwnMove} marked:
 * the older moves are then forgotten (their events come in order); that one stays, since opening an
 * editor at a position sends more than one event for it. A keyboard or mouse move is the user's:
 * never an echo, and it forgets the marks of that document.
 */
export function isOwnMove(editor: vscode.TextEditor, at: vscode.Position, kind: vscode.TextEditorSelectionChangeKind | undefined): boolean {
  const key = editor.document.uri.toString();
  const list = ownMoves.get(key);
  if (!list) return false;
  if (kind === vscode.TextEditorSelectionChangeKind.Keyboard || kind === vscode.TextEditorSelectionChangeKind.Mouse) {
    ownMoves.delete(key);
    return false;
  }
  const k = list.lastIndexOf(positionKey(at));
  if (k < 0) return false;
  list.splice(0, k);
  return true;
}

let shared: RecordHighlight | undefined;

/** The window's {@link RecordHighlight} (made on first use; the extension disposes it on deactivation). */
export function recordHighlight(): RecordHighlight {
  return (shared ??= new RecordHighlight());
}

/** Disposes the window's highlight (extension deactivation, tests). */
export function disposeRecordHighlight(): void {
  shared?.dispose();
  shared = undefined;
}
