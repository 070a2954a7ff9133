/**
 * Untrusted text made safe for each surface that shows it. Everything a trace, its file name, its
 * folder or a workspace file supplies (names, paths, ids, content, mapping values) is untrusted:
 * it must never become a link, an icon `$(…)`, Markdown, HTML or a terminal control sequence.
 *
 * Host surfaces take branded strings that only the tags below make, so the type says the text was
 * escaped for that surface; test/unit/shared/untrusted-sinks.test.ts checks every VS Code sink in
 * src/ takes one. Literal parts of a tagged template are ours and kept; every interpolated string is
 * escaped; numbers are printed as they are.
 *
 * Pure: no vscode, no DOM, no node; the host, the engine, the CLI and the webview all use it.
 */

/** Text safe in a notification, a dialog or a progress title: no link can form (VS Code renders `[x](y)` there). */
export type MessageText = string & { readonly __safeFor: 'message' };
/** Text safe as a MarkdownString's content: no link, image, HTML, emphasis or icon from untrusted parts. */
export type MarkdownText = string & { readonly __safeFor: 'markdown' };
/** Text safe where `$(icon)` renders: CodeLens titles, status bar text, quick pick items, tree items. */
export type LabelText = string & { readonly __safeFor: 'label' };
/** Text shown as plain text (Problems, tab titles, tooltips): control and bidi characters visible. */
export type PlainText = string & { readonly __safeFor: 'plain' };
/**
 * A document symbol's name or detail: the Outline shows it as plain text, but Go to Symbol in Editor
 * (Ctrl+Shift+O) renders `$(icon)` in the container's name it shows beside each symbol, and has no
 * escape syntax the Outline would not show: `$(` is broken by an invisible word joiner.
 */
export type SymbolText = string & { readonly __safeFor: 'symbol' };

/** A value a tag interpolates: untrusted text (escaped) or a number (printed as it is). */
export type Interpolated = string | number;

// C0 controls but tab/newline/CR, DEL, C1 controls, Arabic letter mark, LRM/RLM, bidi embeddings,
// overrides and isolates, and the line/paragraph separators that split a line where none is seen.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Control characters (C0 but tab and newlines, DEL, C1) and bidi marks, embeddings, overrides and
 * isolates shown as `⟨U+202E⟩` instead of acting: a right-to-left override can no longer reorder a
 * name on screen, an ESC can no longer start a terminal sequence, a NUL can no longer break XML.
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, codePointMark);
}

/** A character shown by its code point: `⟨U+202E⟩`. */
export function codePointMark(c: string): string {
  return `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** True when `text` holds a character {@link visibleControls} would show as `⟨U+…⟩`. */
export function hasControls(text: string): boolean {
  CONTROLS.lastIndex = 0;
  const found = CONTROLS.test(text);
  CONTROLS.lastIndex = 0;
  return found;
}

/**
 * A one-line label of untrusted text for any plain-text surface (webview labels, lane names, the
 * CLI, Problems): controls visible, whitespace runs (newlines included) one space, and at most
 * `maxChars` characters (default: no limit), the cut marked with `…`.
 */
export function plainLabel(text: string, maxChars = Infinity): string {
  const one = visibleControls(text).replace(/\s+/g, ' ');
  return one.length > maxChars ? `${one.slice(0, Math.max(0, maxChars - 1))}…` : one;
}

/**
 * Escapes text for a MarkdownString: every ASCII punctuation character gets a backslash (CommonMark
 * allows it for all of them), so no link, image, HTML tag, emphasis, code span, icon or autolink can
 * form; control and bidi characters become visible; whitespace runs become one space.
 */
export function escapeMarkdown(text: string): string {
  return plainLabel(text).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

/** Escapes text for a CodeLens title, status bar or quick pick: `$(name)` would render as an icon. */
export function escapeIcons(text: string): string {
  return plainLabel(text).replace(/\$\(/g, '\\$(');
}

/**
 * Makes text safe in a notification or dialog: they render Markdown links and icons and have no
 * escape syntax, so brackets, parentheses and angle brackets become their full-width look-alikes,
 * a `scheme:` gets a zero-width space after its colon (no autolink), controls are shown, and the
 * length is capped at 200 characters.
 */
export function escapeForMessage(text: string): string {
  const unlinked = plainLabel(text)
    .replace(/[[\]()<>]/g, (c) => ({ '[': '［', ']': '］', '(': '（', ')': '）', '<': '‹', '>': '›' })[c]!)
    .replace(/([a-zA-Z][a-zA-Z0-9+.-]*):(?=\S)/g, '$1:\u200b');
  return unlinked.length > 200 ? `${unlinked.slice(0, 199)}…` : unlinked;
}

function tagged(strings: TemplateStringsArray, values: readonly Interpolated[], escape: (text: string) => string): string {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    out += (typeof v === 'number' ? String(v) : escape(v)) + strings[i + 1]!;
  }
  return out;
}

/** Tag for a notification, dialog or progress text: `` messageText`otrace: cannot read ${path}` ``. */
export function messageText(strings: TemplateStringsArray, ...values: Interpolated[]): MessageText {
  return tagged(strings, values, escapeForMessage) as MessageText;
}

/** Tag for Markdown: the literal parts are otrace's Markdown, every interpolation is escaped text. */
export function markdownText(strings: TemplateStringsArray, ...values: Interpolated[]): MarkdownText {
  return tagged(strings, values, escapeMarkdown) as MarkdownText;
}

/** Tag for a label where icons render (CodeLens, status bar, quick pick, tree): interpolations escaped. */
export function labelText(strings: TemplateStringsArray, ...values: Interpolated[]): LabelText {
  return tagged(strings, values, escapeIcons) as LabelText;
}

/** Text for a document symbol ({@link SymbolText}): controls shown, `$(` never an icon (U+2060 WORD JOINER after the `$`). */
export function escapeSymbolIcons(text: string): string {
  return visibleControls(text).replace(/\$\(/g, '$\u2060(');
}

/** Tag for a document symbol's name or detail (the Outline, Go to Symbol): interpolations escaped. */
export function symbolText(strings: TemplateStringsArray, ...values: Interpolated[]): SymbolText {
  return tagged(strings, values, escapeSymbolIcons) as SymbolText;
}

/** Tag for plain text (Problems, tab titles, tooltips): interpolations with controls shown. */
export function plainText(strings: TemplateStringsArray, ...values: Interpolated[]): PlainText {
  return tagged(strings, values, visibleControls) as PlainText;
}

/** Markdown pieces that are each safe, joined by `separator` (otrace's own Markdown). */
export function joinMarkdown(parts: readonly MarkdownText[], separator: string): MarkdownText {
  return parts.join(separator) as MarkdownText;
}

/** Plain pieces that are each safe, joined by `separator` (otrace's own text). */
export function joinPlain(parts: readonly PlainText[], separator: string): PlainText {
  return parts.join(separator) as PlainText;
}
