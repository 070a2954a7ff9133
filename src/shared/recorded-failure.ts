/**
 * Whether a tool result records a failure as data, not words: the one definition the run summary,
 * the run comparison, the stop evidence, blame and the graph's `failed` cue share (each may add its
 * own reading of the result's text on top). Shared by the engine and the webview: no `vscode`, no DOM.
 */

/** The fields of a trace event (trace/schema.ts's TraceEvent) that record a failure. */
export interface FailureFields {
  error?: unknown;
  is_error?: unknown;
  exit_code?: unknown;
  denied?: unknown;
}

/**
 * True when a tool result records a failure as data: an `error` (a span's error status: OTel,
 * Langfuse, LangSmith, Phoenix...), `is_error: true` (Claude Code, Codex), or a non-zero
 * `exit_code`. Text that merely mentions an error is not enough for this fact. A call the user
 * refused (`denied: true`, which Claude Code also writes as an error) did not fail: the user decided.
 */
export function recordsFailure(e: object): boolean {
  const { error, is_error: isError, exit_code: exitCode, denied } = e as FailureFields;
  if (denied === true) return false;
  return (typeof error === 'string' && error.trim() !== '') || error === true || isError === true || (typeof exitCode === 'number' && exitCode !== 0);
}
