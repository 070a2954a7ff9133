/**
 * A count with its noun in the right number: `1 event`, `2 events`, `1,000,003 events`. Pure: no DOM.
 * @param n a whole count; @param noun the singular; @param plural its plural (default: the noun and `s`).
 */
export function countWords(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}
