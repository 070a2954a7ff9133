/**
 * The decoration model: what the trace text shows for each event, computed from a session's
 * snapshot in the engine's worker (the host gets the marks of a file: src/engine/event-marks.ts has
 * the types). Pure (no `vscode`), so it is unit-tested and benchmarked on its own.
 *
 * One combined mark per event, at the START of the event's range (VS Code stops rendering a line
 * after 10,000 characters, and a minified line can hold several events): the stop (reason and
 * finding), the decisive error, `loop ×N` on a loop's first member, the hindsight best stop, and
 * the credit of message-like events. The mark's category (its colour and gutter icon) is the most
 * important of its parts. Loop members also get a highlight over their whole range.
 */
import type { EventMark, FileMarks, MarkCategory, MarkOptions } from './event-marks';
import { MARK_CATEGORIES } from './event-marks';
import { canonicalType, type EventType } from '../trace/event-types';
import type { Range } from '../trace/model';
import { shownAnalysis, type TraceSnapshot } from './snapshot';
import { creditLabel, creditWorthShowing } from '../shared/credit-words';
import { creditColumn } from '../analysis/credit-column';

/** Event types whose credit is shown: the messages between agents and what they pass on. */
const MESSAGE_LIKE = new Set<EventType>(['message', 'delegate', 'return', 'aggregate', 'orchestrator_decision']);

/**
 * The marks of every file of a session (`''` = the trace file, else the sub-agent file's origin key).
 * Cost: O(n + findings' events), n = events; no sort beyond the snapshot's per-file order.
 */
export function eventMarks(snapshot: TraceSnapshot, options: MarkOptions): Map<string, FileMarks> {
  const events = snapshot.loaded.trace.events;
  const origins = snapshot.loaded.eventOrigins;
  const parts = new Map<number, { category: MarkCategory; text: string }[]>();
  const add = (index: number, category: MarkCategory, text: string) => {
    const list = parts.get(index);
    if (list) list.push({ category, text });
    else parts.set(index, [{ category, text }]);
  };
  const loopMembers = new Set<number>();
  for (const f of snapshot.findings) {
    const main = f.events[0];
    if (f.kind === 'stop' && options.stops) add(main, f.mode === 'ok' || f.severity === 'info' ? 'stop' : 'stopProblem', f.inline);
    else if (f.kind === 'verification' && options.stops) add(main, f.severity === 'info' ? 'stop' : 'stopProblem', f.inline);
    // an error the trace records (red) apart from a hypothesis with its chance (amber, as Problems shows it)
    else if (f.kind === 'blame') add(main, f.severity === 'error' ? 'blame' : 'blameWarning', f.inline);
    else if (f.kind === 'best_stop' && options.stops) add(main, 'bestStop', f.inline);
    else if (f.kind === 'loop' && options.loops) {
      add(main, 'loop', f.inline);
      for (const i of f.events) loopMembers.add(i);
    }
  }
  const credit = shownAnalysis(snapshot)?.credit; // while an append is analysed, the last analysis's
  if (credit && options.credit) {
    const values = creditColumn(credit);
    let max = 0;
    for (let i = 0; i < values.length; i++) if (MESSAGE_LIKE.has(canonicalType(events[i].type))) max = Math.max(max, Math.abs(values.at(i)!));
    for (let i = 0; i < values.length; i++) {
      const v = values.at(i)!;
      // the threshold of the hover and the graph (shared/credit-words.ts): none that prints as 0.00
      if (!creditWorthShowing(v) || !MESSAGE_LIKE.has(canonicalType(events[i].type))) continue;
      add(i, creditCategory(v, max), creditLabel(v, credit.signed)); // named: beside a decisive error or a stop, a bare −0.33 read as a second blame
    }
  }

  const out = new Map<string, FileMarks>();
  for (const [file, indices] of snapshot.byFile) {
    const marks: EventMark[] = [];
    const loopRanges: Range[] = [];
    for (const i of indices) {
      const origin = origins.get(i)!;
      if (loopMembers.has(i)) loopRanges.push(origin.range);
      const list = parts.get(i);
      if (!list) continue;
      let category = list[0].category;
      for (const p of list) if (MARK_CATEGORIES.indexOf(p.category) < MARK_CATEGORIES.indexOf(category)) category = p.category;
      marks.push({ index: i, at: origin.range.start, category, text: list.map((p) => p.text).join(' · ') });
    }
    out.set(file, { marks, loopRanges });
  }
  return out;
}

/** Diverging scale: strong when at least half of the largest credit in the trace. */
function creditCategory(v: number, max: number): MarkCategory {
  const strong = max > 0 && Math.abs(v) >= max / 2;
  if (v >= 0) return strong ? 'creditPositiveStrong' : 'creditPositive';
  return strong ? 'creditNegativeStrong' : 'creditNegative';
}
