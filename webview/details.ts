/**
 * The details pane: the selected event's fields and content, as plain text (trace text is
 * untrusted). The heading and the fields show control and bidi characters as `⟨U+202E⟩`; the
 * content is shown as it is (the raw content view), as text. In a narrow panel the pane is a drawer
 * over the bottom of the graph (styles.css) with a fold button: folded, it shows only its heading,
 * for every event selected next, until unfolded.
 */
import type { GraphNode } from '../src/shared/protocol';
import { plainLabel, visibleControls } from '../src/shared/untrusted-text';

/** The drawer is folded (narrow panels): the user's choice, kept from one event to the next. */
let folded = false;

/** Shows `node` in `pane`; `actions` are the buttons to offer (label, handler). */
export function showDetails(pane: HTMLElement, node: GraphNode | undefined, actions: [string, () => void][]): void {
  pane.replaceChildren();
  pane.classList.toggle('empty', !node);
  pane.classList.toggle('folded', folded && !!node);
  if (!node) {
    const hint = document.createElement('p');
    hint.className = 'hint';
    hint.textContent = 'Click an event for its details. ←/→ step through events in time order, Shift+←/→ within an agent, S the next stop, N the next finding, Enter shows it in the trace file, Ctrl+F finds, Space plays, F fits, Z zooms to the selection, L labels the event, Esc goes back (then folds these details).';
    pane.append(hint);
    return;
  }
  const heading = document.createElement('h2');
  heading.textContent = clipField(plainLabel(node.label));
  const head = document.createElement('div');
  head.className = 'details-head';
  head.append(heading, foldButton(pane));
  const table = document.createElement('table');
  const fields: [string, string][] = [...node.fields];
  if (node.marks.length) fields.push(['analysis', analysisWords(node.marks)]);
  for (const [k, v] of fields) {
    const row = table.insertRow();
    row.insertCell().textContent = k;
    const cell = row.insertCell();
    const shown = visibleControls(v);
    cell.textContent = clipField(shown);
    if (cell.textContent !== shown) cell.title = shown.slice(0, 4096); // the whole value on hover (the content has its own pane and Show Whole Content)
  }
  // The buttons under the heading, above the fields and the content: a long record must not push them out of view.
  const bar = document.createElement('div');
  bar.className = 'actions';
  for (const [label, run] of actions) {
    const button = document.createElement('vscode-button');
    button.textContent = label;
    button.addEventListener('click', run);
    bar.append(button);
  }
  pane.append(head, bar, table);
  if (node.text) {
    const pre = document.createElement('pre');
    pre.textContent = node.text;
    pane.append(pre);
  }
}

/**
 * Folds the drawer to its heading line (`Esc` in the graph, when it has no zoom or framing to back
 * out of) when it shows an event unfolded in a narrow panel; a wide panel's pane beside the graph
 * has no fold. @returns whether it folded.
 */
export function foldDrawer(pane: HTMLElement): boolean {
  const button = pane.querySelector<HTMLButtonElement>('.details-head .fold');
  if (!button || folded || getComputedStyle(button).display === 'none') return false;
  button.click();
  return true;
}

/** The drawer's fold button: folds it to its heading line (the graph under it shows) and back. */
function foldButton(pane: HTMLElement): HTMLButtonElement {
  const button = document.createElement('button');
  button.className = 'tool fold';
  const show = () => {
    button.textContent = folded ? '▴ details' : '▾';
    button.title = folded ? 'Show the details' : 'Fold the details to this line (the graph under them shows)';
    button.setAttribute('aria-expanded', String(!folded));
    pane.classList.toggle('folded', folded);
  };
  button.addEventListener('click', () => {
    folded = !folded;
    show();
  });
  show();
  return button;
}

/** Longest field value shown whole (characters): a 5,000-character agent name would push the rest of the pane out of view. */
export const FIELD_CHARS = 200;

/** A field's value cut to {@link FIELD_CHARS} with what was left out counted, as the CLI writes it. */
export function clipField(value: string): string {
  return value.length > FIELD_CHARS ? `${value.slice(0, FIELD_CHARS)}…(${value.length - FIELD_CHARS} more)` : value;
}

/** The details pane's analysis row: an event's analysis marks in words ({@link MARK_WORDS}), in their order. */
export function analysisWords(marks: readonly string[]): string {
  return marks.map((m) => MARK_WORDS[m] ?? m).join(', ');
}

/** The analysis marks of an event in words (the codes are the graph's classes). */
const MARK_WORDS: Record<string, string> = {
  loop: 'part of a loop',
  blame: 'decisive error',
  'stop-ok': 'sound stop (the trace records success, no stop failure found)',
  'stop-problem': 'stop problem (see the findings)',
  // how the turn ended is its reason's (a hand-back, the user stopping it, an error): not said here
  'turn-end': 'turn ended (the user may go on; no verdict about the task)',
  'phase-end': 'phase ended (a stage inside the run; no verdict about the task)',
  'last-stop': "the lane's last stop",
};
