/**
 * The exit code of a command a Codex rollout ran, from the structure Codex gives it, never from
 * free text in the command's output (a log line saying "exit code: 1" is output, not a status).
 *
 * Where Codex writes it (openai/codex, codex-rs):
 * - the `exec_command_end` event (`ExecCommandEndEvent`: `call_id`, `exit_code`, `duration`,
 *   `aggregated_output`, `status`), paired with its call by `call_id` (read in codex-rollout.ts);
 * - the header Codex puts before a command's output in the `function_call_output` the model reads:
 *   unified exec (`exec_command` / `write_stdin`, core `tools/handlers/unified_exec.rs`) writes
 *   `Chunk ID: …`, `Wall time: … seconds`, `Process exited with code N` (or `Process running with
 *   session ID N` while it runs), `Original token count: N`, then `Output:` and the output; the
 *   freeform shell output writes `Exit code: N`, `Wall time: … seconds`, `Total output lines: N`,
 *   then `Output:`;
 * - older rollouts: the output as JSON `{"output": "…", "metadata": {"exit_code": N, "duration_seconds": …}}`.
 *
 * Pure: imports nothing from `vscode`.
 */

/** One line of the header Codex writes before a command's output, with the exit code it may carry. */
const HEADER_LINE = /^(?:Chunk ID: \S*|Wall time: [\d.]+ seconds?|Process exited with code (-?\d+)|Process running with session ID \S+|Original token count: \d+|Exit code: (-?\d+)|Total output lines: \d+)$/;

/** The line that ends the header: the output follows it. */
const OUTPUT_LINE = 'Output:';

/** Most header lines read before giving up (the header has at most five). */
const MAX_HEADER_LINES = 8;

/**
 * The exit code in the header Codex writes before a command's output: every line before the
 * `Output:` line must be a header line (`Chunk ID`, `Wall time`, `Process exited with code N`,
 * `Process running with session ID N`, `Original token count`, `Exit code: N`, `Total output lines`).
 * @param text the output the model read (a `function_call_output`'s text).
 * @returns the exit code (an integer), or undefined when the text has no such header or the header
 * names no exit code (the process still runs).
 */
export function headerExitCode(text: string): number | undefined {
  let code: number | undefined;
  let start = 0;
  for (let n = 0; n <= MAX_HEADER_LINES; n++) {
    const end = text.indexOf('\n', start);
    const line = (end === -1 ? text.slice(start) : text.slice(start, end)).replace(/\r$/, '');
    if (line === OUTPUT_LINE) return n === 0 ? undefined : code;
    const m = HEADER_LINE.exec(line);
    if (!m || end === -1) return undefined;
    const value = m[1] ?? m[2];
    if (value !== undefined) code = Number(value);
    start = end + 1;
  }
  return undefined;
}

/**
 * The exit code of an older rollout's structured shell output: the text is JSON
 * `{"output": "…", "metadata": {"exit_code": N}}`.
 * @returns the exit code, or undefined when the text is not that JSON.
 */
export function metadataExitCode(text: string): number | undefined {
  const t = text.trimStart();
  if (!t.startsWith('{') || !t.includes('"exit_code"')) return undefined;
  try {
    const v = JSON.parse(t) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    const meta = (v as Record<string, unknown>).metadata;
    if (typeof meta !== 'object' || meta === null || !('output' in v)) return undefined;
    const code = (meta as Record<string, unknown>).exit_code;
    return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The exit code a command's output carries in its structure ({@link headerExitCode}, else {@link metadataExitCode}). */
export function outputExitCode(text: string): number | undefined {
  return headerExitCode(text) ?? metadataExitCode(text);
}

/**
 * The exit code of an `exec_command_end` event's payload: its integer `exit_code`, else undefined.
 * @param payload the event's payload (`{type: "exec_command_end", call_id, exit_code, …}`).
 */
export function endEventExitCode(payload: Record<string, unknown>): number | undefined {
  const code = payload.exit_code;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}
