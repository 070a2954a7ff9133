/**
 * Positions in JSON documents, for importers: parse with jsonc-parser's `parseTree`, report syntax
 * errors as positioned problems, look up properties of object nodes, tell whether a node was cut
 * off by a syntax error, and map offsets inside a JSON string's decoded value back to offsets in
 * the file (through its escapes), so that records embedded in a string (e.g. a raw log) keep their
 * place in the file.
 *
 * All offsets are UTF-16 code units, like jsonc-parser's and {@link LineIndex}'s.
 */
import { getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { setOwnField } from './counts';
import { LineIndex, type Problem, type Range } from './model';

const PARSE_OPTIONS = { disallowComments: true, allowTrailingComma: false } as const;

/** A parsed JSON text and where it sits in the file. */
export interface JsonDocument {
  /** The parsed text (node offsets are relative to it). */
  text: string;
  /** Root node, or undefined when the text holds no JSON value. */
  root: Node | undefined;
  /** Line index of the whole file (not only of this text). */
  lines: LineIndex;
  /** Offset of this text in the file (0 for a whole-file document, the line start for a JSONL line). */
  base: number;
  /** Syntax errors, positioned in the file. */
  problems: Problem[];
  /** Offset (in this text) of the first syntax error, or Infinity when there is none. */
  firstErrorOffset: number;
  /** Offsets (in this text) of all syntax errors, ascending. */
  errorOffsets: number[];
}

/**
 * Parses `text` (the whole file, or one line of it starting at file offset `base`).
 * @param lines the file's line index (built from `text` when absent, i.e. when `text` is the file).
 * @returns the tree and the syntax errors as problems; never throws.
 */
export function parseJsonDocument(text: string, lines?: LineIndex, base = 0): JsonDocument {
  const index = lines ?? new LineIndex(text);
  // Valid JSON (the usual case): a lazy tree, whose nodes are found only where a reader looks.
  // jsonc-parser's full tree of a 10 MB export costs ~20x JSON.parse, mostly garbage collection.
  const lazy = lazyTree(text);
  if (lazy !== false) return { text, root: lazy, lines: index, base, problems: [], firstErrorOffset: Infinity, errorOffsets: [] };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  const problems: Problem[] = [];
  let firstErrorOffset = Infinity;
  // jsonc-parser reports a cascade after the first error (a cut-off file gives one per open bracket):
  // report the first one, and how many followed.
  const first = errors[0];
  if (first) {
    firstErrorOffset = first.offset;
    const atEnd = first.offset >= text.trimEnd().length - 1 || errors.some((e) => e.offset >= text.trimEnd().length);
    const more = errors.length > 1 ? ` (${errors.length - 1} more error${errors.length > 2 ? 's' : ''} after it)` : '';
    problems.push({
      severity: 'error',
      message: atEnd
        ? `the JSON ends early (${describeParseError(first)}): the text is cut off; the complete records before this point loaded`
        : `JSON syntax error: ${describeParseError(first)}${more}; the complete records outside the damaged part loaded`,
      range: index.range(base + first.offset, Math.max(first.length, 1)),
    });
  }
  return { text, root, lines: index, base, problems, firstErrorOffset, errorOffsets: errors.map((e) => e.offset).sort((a, b) => a - b) };
}

/** A jsonc-parser error code in words, e.g. "close brace expected". */
export function describeParseError(e: ParseError): string {
  return printParseErrorCode(e.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The value node of property `key` of an object node (first match), or undefined. */
export function property(node: Node | undefined, key: string): Node | undefined {
  if (!node || node.type !== 'object') return undefined;
  for (const prop of node.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (k && k.value === key) return v;
  }
  return undefined;
}

/** The value node of the first of `keys` that the object has (for fields spelled two ways). */
export function propertyOf(node: Node | undefined, ...keys: string[]): Node | undefined {
  for (const key of keys) {
    const v = property(node, key);
    if (v) return v;
  }
  return undefined;
}

/** The (key, value node) pairs of an object node, in file order. */
export function properties(node: Node | undefined): [string, Node][] {
  if (!node || node.type !== 'object') return [];
  const out: [string, Node][] = [];
  for (const prop of node.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (k && v && typeof k.value === 'string') out.push([k.value, v]);
  }
  return out;
}

/** The items of an array node (empty for anything else). */
export function items(node: Node | undefined): Node[] {
  return node && node.type === 'array' ? (node.children ?? []) : [];
}

/** The JavaScript value of a node, with plain objects (undefined for no node; partial for a cut-off node). */
export function valueOf(node: Node | undefined): unknown {
  if (!node) return undefined;
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [k, v] = prop.children ?? [];
        // a "__proto__" key stays a plain own property, as JSON.parse makes it
        if (k && v) setOwnField(out, k.value as string, valueOf(v));
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(valueOf);
    default:
      return getNodeValue(node);
  }
}

/**
 * The value of a node of `doc`: a native JSON.parse of its text when it is complete (fast, little
 * garbage), else the partial value from the tree ({@link valueOf}).
 */
export function valueIn(doc: JsonDocument, node: Node | undefined): unknown {
  if (!node) return undefined;
  if (node.type !== 'object' && node.type !== 'array') return getNodeValue(node);
  if (isComplete(doc, node)) {
    try {
      return JSON.parse(doc.text.slice(node.offset, node.offset + node.length));
    } catch {
      // fall through to the tree
    }
  }
  return valueOf(node);
}

/** The value of a string node, or undefined for any other node. */
export function stringOf(node: Node | undefined): string | undefined {
  return node && node.type === 'string' ? (node.value as string) : undefined;
}

/** The range of a node in the file. */
export function nodeRange(doc: JsonDocument, node: Node): Range {
  return doc.lines.range(doc.base + node.offset, node.length);
}

/**
 * True when no syntax error lies inside the node or at its end: a record cut off by a truncation (its
 * errors sit at the end of the text, where the node ends), or damaged, is not complete; records before
 * and after a damaged one are.
 */
export function isComplete(doc: JsonDocument, node: Node): boolean {
  const offsets = doc.errorOffsets;
  const end = node.offset + node.length;
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid] < node.offset) lo = mid + 1;
    else hi = mid;
  }
  return lo >= offsets.length || offsets[lo] > end;
}

/**
 * Maps offsets in the decoded value of a JSON string node to offsets in the file.
 * `decoded` must be sorted ascending; each may be 0..value.length (the end maps past the last character).
 * One pass over the raw literal: `\uXXXX` is six raw units for one decoded unit, other escapes two.
 * @returns file offsets, index for index with `decoded`.
 */
export function mapStringOffsets(doc: JsonDocument, node: Node, decoded: readonly number[]): number[] {
  const text = doc.text;
  const out: number[] = new Array(decoded.length);
  const rawStart = node.offset + 1; // after the opening quote
  const rawEnd = node.offset + node.length - 1;
  let raw = rawStart;
  let dec = 0;
  let k = 0;
  while (k < decoded.length) {
    const target = decoded[k];
    while (dec < target && raw < rawEnd) {
      if (text.charCodeAt(raw) === 92 /* \ */) raw += text.charCodeAt(raw + 1) === 117 /* u */ ? 6 : 2;
      else raw += 1;
      dec++;
    }
    out[k++] = doc.base + Math.min(raw, rawEnd);
  }
  return out;
}

// ---- Lazy tree for valid JSON -------------------------------------------------------------------

const WS = new Uint8Array(128);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

/** Offset of the first non-whitespace character at or after `i`. */
function skipWs(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c < 128 && WS[c] === 1; c = text.charCodeAt(++i));
  return i;
}

/** Offset just past the string literal whose opening quote is at `i` (the text is valid JSON). */
function skipString(text: string, i: number): number {
  for (let j = text.indexOf('"', i + 1); ; j = text.indexOf('"', j + 1)) {
    let k = j - 1;
    while (text.charCodeAt(k) === 92 /* \ */) k--;
    if ((j - k) % 2 === 1) return j + 1; // an even number of backslashes before it: the closing quote
  }
}

/** Offset just past the JSON value starting at `i` (the text is valid JSON). */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i + 1;
    for (let d = text.charCodeAt(j); j < text.length && d !== 0x2c && d !== 0x7d && d !== 0x5d && !(d < 128 && WS[d] === 1); d = text.charCodeAt(++j));
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x22) j = skipString(text, j) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
  }
  return text.length;
}

/**
 * A node of a valid JSON text with jsonc-parser's shape (type, offset, length, parent, value of a
 * primitive, colonOffset of a property) whose children are scanned when first read.
 */
class LazyNode implements Node {
  value: unknown;
  colonOffset?: number;
  /** The node's value from the one JSON.parse of the whole text (see {@link sharedValueIn}), when known. */
  parsed: unknown;
  hasParsed = false;
  private kids: Node[] | undefined;

  constructor(
    private readonly text: string,
    readonly type: Node['type'],
    readonly offset: number,
    readonly length: number,
    readonly parent: Node | undefined,
  ) {}

  get children(): Node[] | undefined {
    if (this.kids === undefined && (this.type === 'object' || this.type === 'array' || this.type === 'property')) this.kids = this.scan();
    return this.kids;
  }

  set children(v: Node[] | undefined) {
    this.kids = v;
  }

  private scan(): Node[] {
    const text = this.text;
    const out: Node[] = [];
    const end = this.offset + this.length - 1;
    const values: unknown[] = [];
    const keys = new Set<string>();
    let duplicate = false;
    let i = skipWs(text, this.offset + 1);
    while (i < end) {
      if (this.type === 'object') {
        const keyEnd = skipString(text, i);
        const colon = skipWs(text, keyEnd);
        const vStart = skipWs(text, colon + 1);
        const vEnd = skipValue(text, vStart);
        const prop = new LazyNode(text, 'property', i, vEnd - i, this);
        prop.colonOffset = colon;
        const key = valueNode(text, i, keyEnd, prop);
        const value = valueNode(text, vStart, vEnd, prop);
        prop.children = [key, value];
        if (keys.has(key.value as string)) duplicate = true;
        keys.add(key.value as string);
        values.push(value);
        out.push(prop);
        i = vEnd;
      } else {
        const vEnd = skipValue(text, i);
        const value = valueNode(text, i, vEnd, this);
        values.push(value);
        out.push(value);
        i = vEnd;
      }
      i = skipWs(text, i);
      if (text.charCodeAt(i) === 0x2c) i = skipWs(text, i + 1);
    }
    // Hand each child its part of the parsed value (not with repeated keys: JSON.parse keeps the last).
    if (this.hasParsed && !duplicate && this.parsed !== null && typeof this.parsed === 'object') {
      const parsed = this.parsed as Record<string, unknown>;
      values.forEach((v, k) => {
        const node = v as LazyNode;
        node.parsed = this.type === 'object' ? parsed[(out[k] as LazyNode).children![0].value as string] : (parsed as unknown as unknown[])[k];
        node.hasParsed = true;
      });
    }
    return out;
  }
}

/** The node of the value at [start, end) of a valid JSON text. */
function valueNode(text: string, start: number, end: number, parent: Node): Node {
  const c = text.charCodeAt(start);
  const type: Node['type'] = c === 0x7b ? 'object' : c === 0x5b ? 'array' : c === 0x22 ? 'string' : c === 0x74 || c === 0x66 ? 'boolean' : c === 0x6e ? 'null' : 'number';
  const node = new LazyNode(text, type, start, end - start, parent);
  if (type === 'string') {
    const raw = text.slice(start + 1, end - 1);
    node.value = raw.includes('\\') ? JSON.parse(text.slice(start, end)) : raw;
  }
  else if (type === 'number') node.value = Number(text.slice(start, end));
  else if (type === 'boolean') node.value = c === 0x74;
  else if (type === 'null') node.value = null;
  return node;
}

/** The lazy tree of `text` when it is valid JSON (checked by JSON.parse), else false. */
function lazyTree(text: string): Node | undefined | false {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const start = skipWs(text, 0);
  if (start >= text.length) return undefined;
  const root = valueNode(text, start, skipValue(text, start), undefined as unknown as Node) as LazyNode;
  root.parsed = parsed;
  root.hasParsed = true;
  return root;
}

/**
 * The value of a node like {@link valueIn}, but for valid JSON the very object of the one JSON.parse
 * of the whole text (no second parse of the record's text). Callers must not change it: other nodes'
 * values share its parts. For readers that only read records (the span readers).
 */
export function sharedValueIn(doc: JsonDocument, node: Node | undefined): unknown {
  if (node instanceof LazyNode && node.hasParsed) return node.parsed;
  return valueIn(doc, node);
}
