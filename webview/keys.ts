/**
 * The graph's keyboard: a press anywhere in the graph takes the keyboard to it; keys run graph
 * commands (KEYS), Enter shows the current event in the trace file, Ctrl+F (Cmd+F) or / goes to
 * the filter box. Keys typed in a text field stay there. A button clicked with the mouse gives the
 * keyboard back to the graph (Enter after a click on Play shows the event, it does not press Play
 * again); a button reached with Tab and pressed with Enter or Space keeps it, so keyboard users
 * can press it again or Tab on.
 */
import type { GraphCommand } from '../src/shared/protocol';
import { $ } from './dom';

/** Graph commands by key (`Shift+` for shifted keys; letters in lower case unshifted). */
export const KEYS: Record<string, GraphCommand> = {
  ArrowRight: 'next',
  ArrowLeft: 'previous',
  'Shift+ArrowRight': 'nextOfAgent',
  'Shift+ArrowLeft': 'previousOfAgent',
  Home: 'first',
  End: 'last',
  s: 'nextStop',
  'Shift+S': 'previousStop',
  n: 'nextFinding',
  'Shift+N': 'previousFinding',
  ' ': 'playPause',
  f: 'fit',
  'Shift+F': 'fit',
  z: 'zoomToSelection',
  t: 'toggleAxis',
  l: 'label',
  Escape: 'back',
};

/** The command of a key press (KEYS), if any. */
export function commandOfKey(e: Pick<KeyboardEvent, 'key' | 'shiftKey'>): GraphCommand | undefined {
  const key = e.key.length === 1 && !e.shiftKey ? e.key.toLowerCase() : e.key;
  return KEYS[e.shiftKey && key !== ' ' ? `Shift+${key.length === 1 ? key.toUpperCase() : key}` : key] ?? KEYS[key.toLowerCase()];
}

/** What the keys do: run a command; show the current event in the trace file (false when there is none). */
export interface KeyActions {
  run(command: GraphCommand): void;
  revealCurrent(): boolean;
}

/**
 * The graph owns its keyboard: a press anywhere in the graph (the canvas included: Cytoscape
 * cancels the mouse's default action, which would leave the focus in the text editor) focuses the
 * graph, so the keys that follow reach the graph and never a document.
 */
function takeFocus(e: Event): void {
  const target = e.target as HTMLElement;
  if (target.closest('vscode-textfield, vscode-button, button, input, label, a')) return;
  $('canvas').focus({ preventScroll: true });
}

/** The controls whose mouse click hands the keyboard back to the graph (not the text field, not the speed list). */
const BUTTONS = 'button, vscode-button, input[type="checkbox"], label';

/**
 * After a mouse click on a button (toolbar, player, details, findings, run summary) the graph has
 * the keyboard again, so the keys documented for the graph act at once. A click made with the
 * keyboard (Enter or Space on a focused button: `detail` 0, as the UI Events spec gives a click
 * without a pointer) leaves the focus on the button.
 */
function giveBackFocus(e: MouseEvent): void {
  const target = e.target as Partial<HTMLElement>;
  if (e.detail === 0 || !target.closest?.(BUTTONS)) return;
  // At once: a key pressed right after the click must reach the graph, and the browser runs input
  // before timers (CI saw Enter land on Play, a timer still pending, and pause playback).
  $('canvas').focus({ preventScroll: true });
  // And again after the whole click: a label's click goes on to its checkbox, which may take the focus.
  if (target.closest?.('label')) setTimeout(() => $('canvas').focus({ preventScroll: true }));
}

/** Wires the page's keyboard to the graph. */
export function installKeys(actions: KeyActions): void {
  document.addEventListener('pointerdown', takeFocus, true);
  document.addEventListener('mousedown', takeFocus, true);
  document.addEventListener('click', giveBackFocus);
  document.addEventListener('keydown', (e) => {
    if ((e.target as Partial<HTMLElement>).closest?.('vscode-textfield, input')) return;
    // Ctrl+F (Cmd+F) or / : to the filter box, as in an editor (the letters typed next must not run graph keys)
    if (((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f') || (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey)) {
      e.preventDefault();
      $('search').focus();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // Enter on the current event: Show in Trace File (beside the graph; the keyboard stays here)
    if (e.key === 'Enter' && (e.target as Partial<HTMLElement>).closest?.('button, vscode-button') == null) {
      if (actions.revealCurrent()) e.preventDefault();
      return;
    }
    const command = commandOfKey(e);
    if (!command) return;
    e.preventDefault();
    actions.run(command);
  });
}
