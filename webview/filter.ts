/**
 * The filter box: the host searches every event of the trace (loaded or not) for the text typed;
 * loaded elements that hold no match are dimmed, Enter / Shift+Enter step through the matches in
 * time order, Esc clears it and gives the keyboard back to the graph (as VS Code's find widget
 * takes its highlights away: a filter left on after Esc kept the graph dimmed with no sign why).
 */
import { $ } from './dom';
import type { TraceState } from './trace-state';
import { post } from './vscode-api';

/** Asks the host for the events matching `text` (the whole trace, loaded or not). */
function filter(s: TraceState, text: string): void {
  s.filter.text = text.trim().toLowerCase();
  if (!s.filter.text) {
    s.filter.matches = undefined;
    applyFilter(s);
    return;
  }
  post({ type: 'find', stamp: s.stamp, query: s.filter.text });
}

/** The host's answer to a `find` of this state's snapshot: kept and shown when it answers the newest text. */
export function receiveFound(s: TraceState, query: string, indices: number[]): void {
  if (query !== s.filter.text) return;
  s.filter.matches = new Set(indices);
  s.filter.answered = query;
  applyFilter(s);
  if (s.filter.jumpWhenFound !== undefined) jumpToMatch(s, s.filter.jumpWhenFound);
  s.filter.jumpWhenFound = undefined;
}

/** Dims the loaded elements that hold no match (a run bar holding one stays bright). */
export function applyFilter(s: TraceState): void {
  const g = s.view;
  const { matches } = s.filter;
  g.cy.batch(() => {
    if (!matches) {
      if (s.filter.shown) g.cy.elements().removeClass('dimmed');
      s.filter.shown = false;
      $('matches').textContent = '';
      return;
    }
    s.filter.shown = true;
    g.cy.elements().removeClass('dimmed');
    const hit = new Set<string>();
    for (const i of matches) {
      const key = g.keyOf(i);
      if (key) hit.add(key);
    }
    const count = `${matches.size.toLocaleString('en-US')} ${matches.size === 1 ? 'match' : 'matches'}`;
    $('search').title = matches.size === 0 ? 'No event matches' : `${count}: Enter goes to the next, Shift+Enter to the previous, Esc clears the filter`;
    $('matches').textContent = matches.size === 0 ? 'no event matches' : count;
    g.cy.nodes().forEach((n) => {
      if (!hit.has(n.id())) n.addClass('dimmed');
    });
    g.cy.edges().addClass('dimmed');
  });
}

/** Selects the next (or previous) matching event in time order, as → would, and shows it. */
function jumpToMatch(s: TraceState, dir: 1 | -1): void {
  const { matches } = s.filter;
  if (!matches || matches.size === 0) return;
  s.timeline.stepAmong(matches, dir);
  const place = s.timeline.placeAmong(matches);
  if (place > 0) $('matches').textContent = `${place.toLocaleString('en-US')} of ${matches.size.toLocaleString('en-US')} matches`;
}

/**
 * A new snapshot is shown (`s`): the filter box's text goes on filtering it when it is the trace
 * filtered before (`sameTrace`: its analysis came, or lines were appended), else the box is emptied
 * (a text typed for another trace, left in the box, filtered nothing and read as if it did).
 */
export function carryFilter(s: TraceState, sameTrace: boolean): void {
  const box = $('search') as HTMLInputElement;
  if (!sameTrace) {
    box.value = '';
    $('matches').textContent = '';
    return;
  }
  if (box.value.trim()) filter(s, box.value);
}

/** Wires the filter box to the trace shown (`shown()`: its state, if any). */
export function installFilter(shown: () => TraceState | undefined): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  $('search').addEventListener('input', (e) => {
    // Wait for a pause in typing: the host searches every event.
    clearTimeout(timer);
    const value = (e.target as HTMLInputElement).value ?? '';
    timer = setTimeout(() => {
      const s = shown();
      if (s) filter(s, value);
    }, 200);
  });
  // In the filter box: Enter / Shift+Enter step through the matches, Esc clears the filter and gives the keyboard back to the graph
  // (the event a match took the graph to stays selected).
  $('search').addEventListener('keydown', (e) => {
    const key = e as KeyboardEvent;
    if (key.key === 'Escape') {
      key.preventDefault();
      // the graph first: the box's blur writes its inner field's text back to it (its own render of '' comes later)
      $('canvas').focus();
      const box = $('search') as HTMLInputElement;
      if (box.value) {
        clearTimeout(timer);
        box.value = '';
        const s = shown();
        if (s) filter(s, '');
      }
      return;
    }
    if (key.key !== 'Enter') return;
    key.preventDefault();
    const s = shown();
    if (!s) return;
    const dir = key.shiftKey ? -1 : 1;
    const value = String(($('search') as HTMLInputElement).value ?? '').trim().toLowerCase();
    if (value !== s.filter.text) {
      // typed faster than the pause the box waits for: ask now, go once the answer is in
      clearTimeout(timer);
      s.filter.jumpWhenFound = dir;
      filter(s, value);
    } else if (s.filter.answered !== value) s.filter.jumpWhenFound = dir; // asked, not answered yet: the matches shown are an older text's
    else jumpToMatch(s, dir);
  });
}
