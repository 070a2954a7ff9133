/** `text` as a regular expression that matches it literally (each character the syntax reads escaped). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
