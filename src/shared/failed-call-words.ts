/**
 * How the views count the tool calls whose result records a failure (the run summary's
 * `failed_calls`): one wording for `otrace summary` and the graph's Problems row.
 */

/** `1 tool call recorded a failure`, `3 tool calls recorded a failure`. */
export function failedCallWords(count: number): string {
  return `${count.toLocaleString('en-US')} tool call${count === 1 ? '' : 's'} recorded a failure`;
}
