/**
 * otrace's own Markdown in VS Code's rich surfaces. The escapes of untrusted text live in
 * src/shared/untrusted-text.ts; this adds what only the host writes: command links to otrace's
 * commands and previews of long text.
 */
import { escapeMarkdown, type MarkdownText } from '../../shared/untrusted-text';

/** Cuts text to `max` characters, saying how long it was. */
export function preview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)` : text;
}

/** A `command:` link to one of otrace's own commands with JSON arguments (URI-encoded, as VS Code expects); the label is escaped. */
export function commandLink(label: string, command: string, args: unknown): MarkdownText {
  return `[${escapeMarkdown(label)}](command:${command}?${encodeURIComponent(JSON.stringify(args))})` as MarkdownText;
}
