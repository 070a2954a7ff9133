/**
 * What two runs' events are compared by (issue 28): their content with what always differs between
 * two runs of one task taken out (white space, ids, numbers and timestamps, the user's home folder),
 * and their tool by what it does rather than by what one agent tool calls it (`Bash`, `shell`,
 * `exec_command` and `Shell` all run a command), so that a Claude Code run and a Codex run of the
 * same task line up.
 *
 * Pure: no `vscode`, no Node. Everything here is linear in the text it reads (at most
 * {@link COMPARED_CHARS} characters of a content).
 */

/** Characters of an event's content compared: a difference further in (the tail of a long tool output) is not seen. */
export const COMPARED_CHARS = 8000;

/** The user's home folder in a path: `/home/NAME`, `/Users/NAME`, `C:\Users\NAME`, `/root` (each becomes `~`). */
const HOME = /(?:\/home\/[^/\s'"`]+|\/Users\/[^/\s'"`]+|\b[a-z]:\\+users\\+[^\\\s'"`]+|\/root(?=\/))/gi;
/** An ISO 8601 date and time (`2026-02-23T12:40:23.123Z`, `2026-02-23 12:40`). */
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?\b/gi;
/** A UUID (any version). */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/**
 * An id with a word prefix: `call_dZSePrFOxvfS`, `toolu_01Y64XEaRvUY`, `msg_01…`, `req_…`, `chatcmpl-…`
 * (a prefix of letters, `_` or `-`, then 8 or more letters and digits with a digit among them).
 */
const PREFIXED_ID = /\b[a-z]{2,12}[_-](?=[a-z0-9]*\d)[a-z0-9]{8,}\b/gi;
/** A hexadecimal run of 7 or more characters with a digit: a commit, a hash, an object id, a long number (a hash may be all digits). */
const HEX_ID = /\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b/gi;
/** A number (digits, with a decimal part): counts, durations, line numbers, ports, process ids. */
const NUMBER = /\d+(?:\.\d+)?/g;
const WHITESPACE = /\s+/g;
const DIGIT = /\d/;
/**
 * A word with a digit in it (letters, digits, `_` and `-`, and a decimal part): one pass finds them,
 * and each is an id when it is one whole ({@link PREFIXED_ID}, {@link HEX_ID}), else its numbers are
 * replaced ({@link NUMBER}). A simple class scans several times faster than the three expressions.
 */
const DIGIT_WORD = /\b[a-z0-9_-]*\d[a-z0-9_-]*(?:\.\d+)?/gi;
const WHOLE_PREFIXED_ID = new RegExp(`^${PREFIXED_ID.source.replace(/\\b/g, '')}$`, 'i');
const WHOLE_HEX_ID = new RegExp(`^${HEX_ID.source.replace(/\\b/g, '')}$`, 'i');

/**
 * Content as two runs of one task are compared: the first {@link COMPARED_CHARS} characters, the
 * home folder as `~`, timestamps as `<time>`, UUIDs, prefixed ids and hexadecimal ids as `<id>`,
 * numbers as `<n>`, lower case, runs of white space as one space, trimmed.
 * @param text an event's content (trace text, raw).
 * @returns the normalized text ('' for empty content).
 */
export function comparableContent(text: string): string {
  let s = text.length > COMPARED_CHARS ? text.slice(0, COMPARED_CHARS) : text;
  // each expression only where the text has what it starts with: most texts have no home path, many no digit
  if (s.includes('/home/') || s.includes('/Users/') || s.includes('/root/') || /\\users\\/i.test(s)) s = s.replace(HOME, '~');
  if (DIGIT.test(s)) {
    if (s.includes('-')) s = s.replace(TIMESTAMP, '<time>').replace(UUID, '<id>');
    s = s.replace(DIGIT_WORD, (word) => (WHOLE_PREFIXED_ID.test(word) || WHOLE_HEX_ID.test(word) ? '<id>' : word.replace(NUMBER, '<n>')));
  }
  return s.toLowerCase().replace(WHITESPACE, ' ').trim();
}

/**
 * Tools by what they do, whatever agent tool names them: each name (lower case) -> its family.
 * Names from the tools' own definitions: Claude Code (Bash, Read, Write, Edit, MultiEdit, Glob,
 * Grep, LS, WebFetch, WebSearch, Task/Agent, TodoWrite, NotebookEdit), Codex (codex-rs
 * core/src/tools/spec.rs: shell, shell_command, local_shell, exec_command, write_stdin, read_file,
 * list_dir, grep_files, apply_patch, update_plan, view_image, web_search, spawn_agent), Kimi Code CLI
 * (Shell, ReadFile, WriteFile, StrReplaceFile, Glob, Grep, SearchWeb, FetchURL, Task, SetTodoList),
 * GitHub Copilot CLI (bash, view, create, edit, str_replace_editor), Gemini CLI (run_shell_command,
 * read_file, write_file, replace, glob, search_file_content, list_directory, google_web_search,
 * web_fetch). A name not listed is its own family (its lower-case name).
 */
const TOOL_FAMILIES: Record<string, string> = {};
const FAMILY_NAMES: Record<string, string[]> = {
  shell: ['bash', 'shell', 'shell_command', 'local_shell', 'exec_command', 'run_shell_command', 'container.exec', 'powershell'],
  shell_input: ['write_stdin', 'bashoutput', 'bash_output'],
  read: ['read', 'read_file', 'readfile', 'view', 'view_image', 'notebookread'],
  list: ['ls', 'list_dir', 'list_directory'],
  search: ['grep', 'glob', 'grep_files', 'search_file_content', 'find'],
  write: ['write', 'write_file', 'writefile', 'create'],
  edit: ['edit', 'multiedit', 'apply_patch', 'str_replace_editor', 'strreplacefile', 'str_replace', 'replace', 'notebookedit'],
  web_search: ['websearch', 'web_search', 'searchweb', 'google_web_search'],
  web_fetch: ['webfetch', 'web_fetch', 'fetchurl', 'fetch'],
  plan: ['todowrite', 'update_plan', 'settodolist', 'todo_write'],
  agent: ['task', 'agent', 'spawn_agent'],
};
for (const [family, names] of Object.entries(FAMILY_NAMES)) for (const name of names) TOOL_FAMILIES[name] = family;

/**
 * The family of a tool (see {@link TOOL_FAMILIES}): `shell` for `Bash` and `exec_command`, `edit`
 * for `Edit` and `apply_patch`; an unknown tool's lower-case name; '' for none.
 */
export function toolFamily(tool: string | undefined): string {
  if (!tool) return '';
  const name = tool.trim().toLowerCase();
  return Object.prototype.hasOwnProperty.call(TOOL_FAMILIES, name) ? TOOL_FAMILIES[name] : name;
}
