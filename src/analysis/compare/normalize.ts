/**
 * What two runs' events are compared by (issue 28): their content with what always differs between
 * two runs of one task taken out (white space, ids, timestamps and durations, temporary names, the
 * user's home folder; counts kept: content-scan.ts), and their tool by what it does rather than by
 * what one agent tool calls it (`Bash`, `shell`, `exec_command` and `Shell` all run a command), so
 * that a Claude Code run and a Codex run of the same task line up.
 *
 * Pure: no `vscode`, no Node. Everything here is linear in the text it reads (at most
 * {@link COMPARED_CHARS} characters of a content).
 */
import { ContentNormalizer } from './content-scan';

export { COMPARED_CHARS } from './content-scan';

const normalizer = new ContentNormalizer();

/**
 * Content as two runs of one task are compared (content-scan.ts says what is taken out and why):
 * the first {@link COMPARED_CHARS} characters, the home folder as `~`, temporary names as `<tmp>`,
 * dates and clock times as `<time>`, durations as `<dur>`, ids as `<id>`, a process id as `<n>`,
 * other numbers kept, lower case, runs of white space as one space, trimmed.
 * @param text an event's content (trace text, raw).
 * @returns the normalized text ('' for empty content).
 */
export function comparableContent(text: string): string {
  return normalizer.reset().content(text).text();
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
