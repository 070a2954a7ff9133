/**
 * Terminal escape sequences in recorded text (coloured test output, `/context` bars, OSC 8 links):
 * stripped from the text importers store for display, so what is shown is what a terminal shows.
 * Pure: no `vscode`.
 */

// CSI (ESC [ or 0x9B) params/intermediates/final; OSC (ESC ] or 0x9D) up to BEL, ESC \ or 0x9C;
// DCS/SOS/PM/APC strings (ESC P/X/^/_) up to ST; other two-character ESC sequences.
const ANSI = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]/g;

/** True when `text` holds a terminal escape sequence. */
export function hasAnsi(text: string): boolean {
  ANSI.lastIndex = 0;
  return ANSI.test(text);
}

/**
 * `text` without terminal escape sequences (SGR colours, cursor moves, OSC 8 hyperlinks keep their
 * visible text). Other characters are kept as they are.
 */
export function stripAnsi(text: string): string {
  return text.includes('\x1b') || text.includes('\x9b') || text.includes('\x9d') ? text.replace(ANSI, '') : text;
}
