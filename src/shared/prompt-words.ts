/**
 * How the prompts a user gave after the first read beside what was asked: `then 3 more prompts;
 * the last: “continue until all are done”`. Pure: no DOM. The prompt is trace text: `clean` makes
 * it safe where the line is shown (a terminal, a label).
 */
import { countWords } from './count-words';

/** The user's prompts after the first: how many, and the last one's words (RunSummary `later_prompts`). */
export interface LaterPrompts {
  count: number;
  last: string;
}

/** @param later the prompts after the first; @param clean makes the last one's words safe to show. */
export function laterPromptsWords(later: LaterPrompts, clean: (text: string) => string = (t) => t): string {
  return `then ${countWords(later.count, 'more prompt')}${later.count === 1 ? '' : `; the last`}: “${clean(later.last)}”`;
}
