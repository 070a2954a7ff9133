/**
 * Where a trace file's bytes become text. Trace files are JSON or JSON Lines, which RFC 8259 (§8.1)
 * requires to be UTF-8, but Windows tools write UTF-16 (PowerShell 5's `>` and `Out-File`, .NET's
 * `Encoding.Unicode`), with or without a byte-order mark, and a few write UTF-32. The encoding is read
 * from the byte-order mark, else from the pattern of zero bytes in the first four bytes (RFC 4627 §3:
 * JSON text starts with two ASCII characters, so `xx 00 xx 00` is UTF-16 LE, `00 xx 00 xx` UTF-16 BE,
 * `xx 00 00 00` UTF-32 LE, `00 00 00 xx` UTF-32 BE); UTF-8 JSON never holds a zero byte (U+0000
 * must be escaped in a JSON string). The text is decoded whole, the byte-order mark dropped (as VS
 * Code and TextDecoder do), so line:column positions count in the decoded text, as the editor shows it.
 *
 * Pure: no I/O, no `vscode` (Uint8Array in, string out).
 */
import { LineIndex, type Problem } from './model';

/** A text encoding otrace reads. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

/** What {@link sniffEncoding} found: the encoding, and whether a byte-order mark says so (its length in bytes, 0 when none). */
export interface SniffedEncoding {
  encoding: TextEncoding;
  bomBytes: number;
}

/** The encoding's name for people: `UTF-16 LE`, `UTF-8`. */
export function encodingLabel(encoding: TextEncoding): string {
  return encoding.toUpperCase().replace(/^UTF-(\d+)(LE|BE)$/, 'UTF-$1 $2');
}

/**
 * The encoding of a text file from its first bytes (four are enough; fewer are read as far as they go).
 * @param bytes the start of the file.
 * @returns the encoding (UTF-8 when nothing says otherwise) and the byte-order mark's length.
 */
export function sniffEncoding(bytes: Uint8Array): SniffedEncoding {
  const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  const n = bytes.length;
  if (n >= 3 && a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', bomBytes: 3 };
  if (n >= 4 && a === 0xff && b === 0xfe && c === 0 && d === 0) return { encoding: 'utf-32le', bomBytes: 4 };
  if (n >= 4 && a === 0 && b === 0 && c === 0xfe && d === 0xff) return { encoding: 'utf-32be', bomBytes: 4 };
  if (n >= 2 && a === 0xff && b === 0xfe) return { encoding: 'utf-16le', bomBytes: 2 };
  if (n >= 2 && a === 0xfe && b === 0xff) return { encoding: 'utf-16be', bomBytes: 2 };
  if (n >= 4) {
    if (a !== 0 && b === 0 && c === 0 && d === 0) return { encoding: 'utf-32le', bomBytes: 0 };
    if (a === 0 && b === 0 && c === 0 && d !== 0) return { encoding: 'utf-32be', bomBytes: 0 };
    if (a !== 0 && b === 0 && c !== 0 && d === 0) return { encoding: 'utf-16le', bomBytes: 0 };
    if (a === 0 && b !== 0 && c === 0 && d !== 0) return { encoding: 'utf-16be', bomBytes: 0 };
  } else if (n === 2) {
    if (a !== 0 && b === 0) return { encoding: 'utf-16le', bomBytes: 0 };
    if (a === 0 && b !== 0) return { encoding: 'utf-16be', bomBytes: 0 };
  }
  return { encoding: 'utf-8', bomBytes: 0 };
}

/** A decoded text and the encoding it was read in. */
export interface DecodedText {
  /** The text, without a byte-order mark. */
  text: string;
  encoding: TextEncoding;
  /** True when the file began with a byte-order mark. */
  bom: boolean;
}

/**
 * Decodes a text file's bytes in the encoding {@link sniffEncoding} finds; the byte-order mark is
 * dropped. Malformed sequences become U+FFFD (a cut-off last character too), never an error.
 * @param bytes the file's content (or its start: a character cut at the end becomes U+FFFD).
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const { encoding, bomBytes } = sniffEncoding(bytes);
  const body = bytes.subarray(bomBytes);
  let text: string;
  if (encoding === 'utf-8') text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
  else if (encoding === 'utf-16le' || encoding === 'utf-16be') text = new TextDecoder(encoding, { ignoreBOM: true }).decode(body);
  else text = decodeUtf32(body, encoding === 'utf-32le');
  return { text, encoding, bom: bomBytes > 0 };
}

/** UTF-32 (TextDecoder has no UTF-32): each 4 bytes one code point; a value that is no scalar value, or a cut-off tail, is U+FFFD. */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let chunk: number[] = [];
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const cp = view.getUint32(i, littleEndian);
    chunk.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
    if (chunk.length === 8192) {
      parts.push(String.fromCodePoint(...chunk));
      chunk = [];
    }
  }
  if (bytes.length % 4) chunk.push(0xfffd);
  parts.push(String.fromCodePoint(...chunk));
  return parts.join('');
}

/**
 * True when `bytes` (a file's start) can be read as UTF-8 with byte offsets: the encoding is UTF-8.
 * Readers that follow a file by byte offsets (otrace JSONL streaming, appended lines) need it; a
 * file in another encoding is read whole and decoded instead.
 */
export function isUtf8(bytes: Uint8Array): boolean {
  return sniffEncoding(bytes).encoding === 'utf-8';
}

/**
 * The encoding a text was written in when it was decoded as UTF-8 by mistake: UTF-16 or UTF-32 read
 * as UTF-8 shows a U+0000 between (or around) the ASCII characters of its first line. Undefined
 * when the text shows no such sign.
 * @param text the text as received (e.g. a document an editor decoded as UTF-8).
 */
export function misreadEncoding(text: string): TextEncoding | undefined {
  // A byte-order mark read as UTF-8 is U+FFFD U+FFFD (FF FE, FE FF; UTF-32 LE's FF FE 00 00 adds two U+0000).
  if (/^\ufffd\ufffd\u0000\u0000[^\u0000]/.test(text)) return 'utf-32le';
  if (/^\u0000\u0000\ufffd\ufffd/.test(text)) return 'utf-32be';
  const start = text.replace(/^(\ufffd{1,2}|\ufeff)/, '').slice(0, 4);
  if (start.length < 4 || !start.includes('\u0000')) return undefined;
  const bytes = Uint8Array.from(start, (c) => (c.charCodeAt(0) < 0x100 ? c.charCodeAt(0) : 0x3f));
  const found = sniffEncoding(bytes).encoding;
  return found === 'utf-8' ? undefined : found;
}

/** How far into a text a NUL is looked for ({@link binaryAt}): git's test for a binary file reads its first 8,000 bytes. */
export const BINARY_SNIFF_CHARS = 8000;

/**
 * Where a text shows it is binary content, not text: the offset of the first U+0000 (a NUL byte) in
 * its first {@link BINARY_SNIFF_CHARS} characters when those characters are not text around it
 * (at least one in ten of the others is a replacement character, for bytes that are no UTF-8, or a
 * control character no text holds), or when they are all NULs; else -1. JSON never holds a raw NUL
 * (it is written `\u0000`); a UTF-16 text read as UTF-8 does ({@link misreadEncoding} says so
 * first). A text with NULs in a few lines is a trace with a hole: a writer that crashed, or a file
 * zero-filled where it was never written. Its other lines load and the lines with NULs are errors
 * of their own (a fresh user's trace with one NUL line read "not a text file" and loaded nothing).
 */
export function binaryAt(text: string): number {
  const head = text.slice(0, BINARY_SNIFF_CHARS);
  const nul = head.indexOf('\u0000');
  if (nul === -1) return -1;
  let chars = 0;
  let odd = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if (c === 0) continue;
    chars++;
    if (c === 0xfffd || (c < 32 && !TEXT_CONTROLS.has(c))) odd++;
  }
  return chars === 0 || odd * 10 >= chars ? nul : -1;
}

/** Control characters text holds: tab, line feed, form feed, carriage return, escape (terminal colours). */
const TEXT_CONTROLS = new Set([9, 10, 11, 12, 13, 27]);

/** The one problem of a binary file ({@link binaryAt}): at its first NUL, in `text` (the file's start at least to it). */
export function binaryProblem(text: string, at: number): Problem {
  return { severity: 'error', message: 'not a text file: its content is binary (a NUL byte here); a trace is JSON or JSONL text', range: new LineIndex(text).range(at, 1) };
}
