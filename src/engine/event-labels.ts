/**
 * The short words for an event, and the graph's node labels made of them: a tool call says its
 * tool and its key argument (`Bash: npm test`, `Read: src/app.ts`, `Grep: TODO`, `apply_patch:
 * src/a.ts`: {@link toolCallWords}), a message its speaker and first words (`user: Work on bead…`:
 * {@link headedWords}), a spawn the lane it starts. The webview shows the node labels as they are
 * (plain text) and hides the ones that collide (its level of detail). The trace text's record labels
 * and the Outline (record-labels.ts) say the same words with these functions, clipped to their room.
 *
 * Labels are trace text: each is one line with control and bidi characters shown as `⟨U+202E⟩`
 * (plainLabel, src/shared/untrusted-text.ts) and at most {@link LABEL_CHARS} characters.
 * Pure: no vscode, no DOM.
 */
import { canonicalType, type TraceEvent } from '../trace/schema';
import { plainLabel } from '../shared/untrusted-text';
import { stopReasonWords } from '../shared/stop-words';

/** Longest label in characters (the webview cuts it shorter on screen: 150 px ≈ 25 characters; the tooltip shows it all). */
export const LABEL_CHARS = 80;
/** Content longer than this is not parsed as JSON for its argument: its first {@link HEAD_CHARS} are searched instead. */
const PARSE_LIMIT = 100_000;
const HEAD_CHARS = 8_000;

/** What a label needs beyond the event: the shown name of a lane (its label), the run's working folder (paths are shown relative to it). */
export interface LabelContext {
  /** The name a lane is shown by (e.g. `Explore: find the config loader` for `Explore:a93ccab`); the agent's name when it has none. */
  laneLabel?: (agent: string) => string;
  /** The trace's working folder (`metadata.cwd`), stripped from the front of paths. */
  cwd?: string;
}

/**
 * The label of an event's node: `stop: <reason in words>` (`stop: task complete`, src/shared/stop-words.ts), `reward <value>`, a tool call's `<tool>: <key
 * argument>` (`call <tool>: …` when it is no bar), `result <tool>`, `spawn <lane label>`, a
 * message, delegation or return with its first words (`user: …` when another speaker wrote it in
 * this lane, `→ <lane>: …` when it goes to another lane, `return: …`), else its type.
 * @param bar true when the tool call is drawn as one bar with its result.
 * @returns one line of at most {@link LABEL_CHARS} characters, controls shown (see plainLabel).
 */
export function eventLabel(e: TraceEvent, bar: boolean, ctx: LabelContext = {}): string {
  const kind = canonicalType(e.type);
  const lane = (agent: string) => ctx.laneLabel?.(agent) ?? agent;
  if (kind === 'stop') return clip(`stop: ${stopReasonWords(undefined, e.reason ?? 'unknown')}`);
  if (kind === 'reward') return clip(`reward ${e.value ?? ''}`.trim());
  if ((kind === 'tool_call' || kind === 'tool_result') && e.tool) {
    const tool = toolName(e.tool);
    if (kind === 'tool_result' && !bar) return clip(`result ${tool}`);
    return bar ? toolCallWords(e.tool, e.content, ctx.cwd) : `call ${toolCallWords(e.tool, e.content, ctx.cwd, LABEL_CHARS - 5)}`;
  }
  if (kind === 'spawn' && e.to) return clip(`spawn ${lane(e.to)}`);
  if (e.kind === 'compaction') return 'context compacted';
  const words = typeof e.content === 'string' ? oneLine(e.content) : '';
  if (words && (kind === 'message' || kind === 'delegate' || kind === 'return' || kind === 'human_intervention')) {
    if (kind === 'return' || kind === 'delegate') return headedWords(`${kind}: `, words);
    if (e.from && e.from !== e.agent) return headedWords(`${e.from}: `, words);
    if (e.to && e.to !== e.agent) return headedWords(`→ ${lane(e.to)}: `, words);
    return headedWords('', words);
  }
  if (e.to) return clip(`${e.type} → ${lane(e.to)}`);
  return clip(e.type.replace(/_/g, ' '));
}

/**
 * A tool call in words: its tool's name ({@link toolName}) and its key argument
 * ({@link toolArgument}), `Bash: npm test`, or the name alone when nothing short says what it did.
 * @param tool the tool's name as the trace gives it; `content` the call's input.
 * @param max longest result in characters (the argument cut after a whole word, marked `…`).
 */
export function toolCallWords(tool: string, content: string | undefined, cwd?: string, max = LABEL_CHARS): string {
  const name = toolName(tool);
  const arg = toolArgument(tool, content, cwd);
  return arg ? headedWords(`${name}: `, arg, max) : plainLabel(name, max);
}

/** A tool's name as shown: an MCP tool `mcp__server__tool` as `server.tool`, others as they are. */
export function toolName(tool: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(tool);
  return m ? `${m[1]}.${m[2]}` : tool;
}

/** The shorter label the graph falls back to where the full one collides: the label up to its first `: ` (a tool call's tool, a message's speaker), or undefined when that is the whole label. */
export function shortLabel(label: string): string | undefined {
  if (label.startsWith('stop: ') || label.startsWith('turn ended: ') || label.startsWith('phase ended: ')) return undefined;
  const cut = label.indexOf(': ');
  return cut > 0 && cut < label.length - 2 ? label.slice(0, cut) : undefined;
}

/**
 * The key argument of a tool call, from its content (the call's input: a JSON object, or the
 * command as text): a shell command (`command`, `cmd`; `["bash", "-lc", X]` gives X), a search
 * pattern or query, a file path (`file_path`, `notebook_path`, `path`: relative to `cwd` when under
 * it, else its last parts), a URL, a sub-agent's description; for `apply_patch` the first file the
 * patch touches (`+N more` when it touches several). Text that is no JSON object is the argument
 * itself (otrace traces write the command so). Undefined when nothing short says what the call did.
 * @param tool the tool's name as the trace gives it (MCP tools `mcp__server__tool` too).
 */
export function toolArgument(tool: string, content: string | undefined, cwd?: string): string | undefined {
  if (typeof content !== 'string') return undefined;
  const text = content.trim();
  if (!text) return undefined;
  const name = tool.toLowerCase();
  if (name === 'apply_patch' || /^\*\*\* Begin Patch/.test(text)) {
    const patched = patchFiles(text);
    if (patched.length) return `${shortPath(patched[0], cwd)}${patched.length > 1 ? ` +${patched.length - 1} more` : ''}`;
  }
  if (!text.startsWith('{')) return oneLine(text);
  const input = parseInput(text);
  if (!input) return undefined;
  for (const key of COMMAND_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim()) return oneLine(v);
    if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) return oneLine(shellCommand(v as string[]));
  }
  // a search says what it looks for (its path is only where); then a file, then what else names the call
  for (const key of SEARCH_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim()) return oneLine(key === 'pattern' && /[/*]/.test(v) ? shortPath(v, cwd) : v);
  }
  for (const key of PATH_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim()) return shortPath(v, cwd);
  }
  for (const key of OTHER_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim()) return oneLine(v);
  }
  if (typeof input.input === 'string' && input.input.trim()) return toolArgument(tool, input.input, cwd); // apply_patch's {"input": "*** Begin Patch…"}
  return undefined;
}

/** Input fields holding a command, in the order looked at. */
const COMMAND_KEYS = ['command', 'cmd'];
/** Input fields holding a file path. */
const PATH_KEYS = ['file_path', 'notebook_path', 'path', 'filePath', 'file'];
/** Input fields holding what a search looks for. */
const SEARCH_KEYS = ['pattern', 'query', 'q'];
/** Other fields that say what a call did: an address, a sub-agent's task, a skill, a name. */
const OTHER_KEYS = ['url', 'description', 'prompt', 'skill', 'subject', 'title', 'name', 'text', 'message'];

/** The input object of a call, or undefined (a huge input: its string fields read from its head, as far as they are whole). */
function parseInput(text: string): Record<string, unknown> | undefined {
  if (text.length <= PARSE_LIMIT) {
    try {
      const v: unknown = JSON.parse(text);
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      // cut off or not JSON: read the head's fields below
    }
  }
  const out: Record<string, unknown> = {};
  const head = text.slice(0, HEAD_CHARS);
  for (const key of [...COMMAND_KEYS, ...SEARCH_KEYS, ...PATH_KEYS, ...OTHER_KEYS]) {
    const m = new RegExp(`[{,]\\s*"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(head);
    if (!m) continue;
    try {
      out[key] = JSON.parse(m[1]);
    } catch {
      // an escape cut in the middle: not this field
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** The command of an argument list: what a shell runs (`bash -lc X` gives X), else the words joined. */
function shellCommand(argv: string[]): string {
  const c = argv.findIndex((a) => a === '-c' || a === '-lc' || a === '/c');
  return c >= 0 && c + 1 < argv.length ? argv[c + 1] : argv.join(' ');
}

/** The files an apply_patch text touches (`*** Update File: x`, `*** Add File: x`, `*** Delete File: x`), in order. */
function patchFiles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.slice(0, PARSE_LIMIT).matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) if (!out.includes(m[1].trim())) out.push(m[1].trim());
  return out;
}

/** Longest path shown whole, in characters (a label shows some 25 on screen). */
const PATH_CHARS = 32;

/**
 * A path as short as says which file: relative to `cwd` when under it; when still longer than
 * {@link PATH_CHARS}, its last two parts after `…/`, or its file name alone when those are long too.
 */
export function shortPath(path: string, cwd?: string): string {
  let p = path.trim();
  if (cwd) {
    const base = cwd.replace(/[/\\]+$/, '');
    if (base && (p.startsWith(`${base}/`) || p.startsWith(`${base}\\`))) p = p.slice(base.length + 1);
  }
  if (p.length <= PATH_CHARS) return p;
  const parts = p.split(/[/\\]/).filter(Boolean);
  if (parts.length < 2) return p;
  const two = `…/${parts.slice(-2).join('/')}`;
  return two.length <= PATH_CHARS ? two : `…/${parts[parts.length - 1]}`;
}

/** The head of a text on one line: whitespace runs as one space (controls shown later by plainLabel); only the first `max × 4` characters are read (a tool's output can be many KB). */
function oneLine(text: string, max = LABEL_CHARS): string {
  return text.trimStart().slice(0, Math.max(max, LABEL_CHARS) * 4).replace(/\s+/g, ' ').trim();
}

/**
 * The first words of a text (a message, a tool's output) on one line, controls shown, at most
 * `max` characters, cut after a whole word (see {@link clipWords}); `''` for none.
 */
export function firstWords(text: string | undefined, max = LABEL_CHARS): string {
  return clipWords(oneLine(text ?? '', max), max);
}

/**
 * `head` (a speaker, a tool: `user: `, `Bash: `) and then as many of the first words of `text` as
 * fit in `max` characters (at least 8 of them), the cut marked `…`; trace text made one line, controls shown.
 */
export function headedWords(head: string, text: string, max = LABEL_CHARS): string {
  const h = plainLabel(head);
  return h + firstWords(text, Math.max(8, max - h.length));
}

/**
 * Trace text as one line of at most `max` characters (plainLabel: controls shown), cut after a
 * whole word when one ends in the last third of the room, the cut marked `…`.
 */
export function clipWords(text: string, max: number): string {
  const one = plainLabel(text);
  if (one.length <= max) return one;
  const cut = one.slice(0, Math.max(0, max - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space >= (max * 2) / 3 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

function clip(label: string): string {
  return plainLabel(label, LABEL_CHARS);
}
