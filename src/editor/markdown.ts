/**
 * Trace text in VS Code's rich surfaces. Hovers render Markdown, CodeLens titles render `$(icon)`
 * syntax: a trace is untrusted, so its strings pass through these escapes first.
 */

/**
 * Escapes text for a MarkdownString: every ASCII punctuation character gets a backslash (CommonMark
 * allows it for all of them), so no link, image, HTML tag, emphasis, code span or autolink can form;
 * control and bidi characters become visible `\u{…}`; whitespace runs become one space.
 */
export function escapeMarkdown(text: string): string {
  return visibleControls(text)
    .replace(/\s+/g, ' ')
    .replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

/** Escapes text for a CodeLens title or status bar text: `$(name)` would render as an icon. */
export function escapeIcons(text: string): string {
  return visibleControls(text).replace(/\s+/g, ' ').replace(/\$\(/g, '\\$(');
}

/** Control characters (C0, C1) and bidi overrides/isolates shown as `\u{…}` instead of acting. */
export function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Cuts text to `max` characters, saying how long it was. */
export function preview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)` : text;
}

/** A `command:` link to one of otrace's own commands with JSON arguments (URI-encoded, as VS Code expects). */
export function commandLink(label: string, command: string, args: unknown): string {
  return `[${escapeMarkdown(label)}](command:${command}?${encodeURIComponent(JSON.stringify(args))})`;
}

/**
 * Makes text safe to show in a notification or dialog: notifications render Markdown links and
 * have no escape syntax, so brackets, parentheses and link-like `scheme:` are broken up, control and
 * bidi characters shown as `\u{…}`, and the length capped at 200 characters.
 */
export function escapeForMessage(text: string): string {
  const visible = visibleControls(text).replace(/\s+/g, ' ');
  const unlinked = visible.replace(/[[\]()<>]/g, (c) => ({ '[': '［', ']': '］', '(': '（', ')': '）', '<': '‹', '>': '›' })[c]!).replace(/([a-zA-Z][a-zA-Z0-9+.-]*):(?=\S)/g, '$1:\u200b');
  return unlinked.length > 200 ? `${unlinked.slice(0, 199)}…` : unlinked;
}
