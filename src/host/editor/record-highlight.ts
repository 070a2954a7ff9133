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
   * lines of `range`; reveals the start (centred when `center`, else only when out of view: a whole
   * 60,000-character line must not scroll the view sideways).
   */
  show(editor: vscode.TextEditor, range: vscode.Range, center = true): void {
    this.clear(editor); // one record shaded in the window: the event shown, never an earlier one in another file
    editor.selection = new vscode.Selection(range.start, range.start);
    editor.setDecorations(this.type, [range]);
    this.shaded.set(editor.document.uri.toString(), range);
    editor.revealRange(new vscode.Range(range.start, range.start), center ? vscode.TextEditorRevealType.InCenter : vscode.TextEditorRevealType.InCenterIfOutsideViewport);
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
 * Cursor moves made for the graph (Open Source Prompt, Show in Trace File from the graph), by
 * document URI: the editor's selection event they cause must not select the event under the new
 * cursor in the graph (the user would lose the event they were looking at).
 */
const movesForTheGraph = new Map<string, { at: string; until: number }>();

/** How long the selection events of such a move may take to arrive (opening an editor sends more than one). */
const MOVE_WINDOW_MS = 1500;

/** Says that the cursor of `uri`'s editor is being moved to `at` for the graph (see {@link isMoveForTheGraph}). */
export function markMoveForTheGraph(uri: vscode.Uri, at: vscode.Position): void {
  movesForTheGraph.set(uri.toString(), { at: `${at.line}:${at.character}`, until: Date.now() + MOVE_WINDOW_MS });
}

/** True when `editor`'s cursor is where {@link markMoveForTheGraph} put it moments ago. */
export function isMoveForTheGraph(editor: vscode.TextEditor): boolean {
  const key = editor.document.uri.toString();
  const move = movesForTheGraph.get(key);
  if (!move) return false;
  const at = editor.selection.active;
  if (move.at === `${at.line}:${at.character}` && Date.now() <= move.until) return true;
  movesForTheGraph.delete(key);
  return false;
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
