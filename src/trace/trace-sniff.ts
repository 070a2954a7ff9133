/**
 * A cheap first look at a file, for the extension host: may a built-in format detect it as a trace?
 * It only runs regular expressions over the file's name and the start of its text (no JSON parse,
 * no import), so the host can answer "no" for a `package.json` or a settings file without starting
 * the engine's worker; a "maybe" goes to the engine, whose detectors (src/trace/formats.ts and
 * src/trace/importers/) decide.
 *
 * Each sign below is a necessary condition of one format's `detect`: a key or value that detector
 * requires in the same window of text (64 KiB, or 1 MiB for the otrace/survey JSON, MAST and
 * Who&When detectors), so a text a detector accepts always shows at least one sign
 * (test/unit/trace/trace-sniff.test.ts checks it on every fixture and on prefixes of each). A new
 * format adds its sign here. Not seen: keys spelled with `\u` escapes, and keys of the JSON Lines
 * formats (otrace JSONL, Claude Code, Codex) that first appear after the first MiB.
 *
 * Pure: no imports, no Node, no vscode.
 */

/** How much of the text the sniff reads (characters): the widest window a detector reads (otrace JSON, MAST, Who&When). */
export const SNIFF_CHARS = 1 << 20;

/** One format's necessary sign: true when its detector could accept the text. */
interface Sign {
  /** The format's id (src/trace/formats.ts, the importers). */
  format: string;
  test(head: string, baseName: string): boolean;
}

const SIGNS: Sign[] = [
  // a line with string `id`, `type`, `agent` and a `t`
  { format: 'otrace-jsonl', test: (h) => /"agent"\s*:/.test(h) },
  // an `events` array, or a document starting with the survey's trace fields
  { format: 'otrace-json', test: (h) => /"events"\s*:\s*\[/.test(h) || /^\s*\{\s*"(trace_id|task_id)"\s*:/.test(h) },
  // a record with `sessionId`, a summary with `leafUuid`, or a file-history snapshot
  { format: 'claude-code', test: (h) => /"(sessionId|leafUuid|snapshot)"\s*:/.test(h) },
  // a `session_meta` record, or a rollout-*.jsonl whose records have a payload
  { format: 'codex', test: (h, name) => /"session_meta"/.test(h) || (/^rollout-.*\.jsonl$/.test(name) && /"payload"\s*:/.test(h)) },
  // a Codex rollout-trace bundle: a raw event's wall clock, or the manifest naming its event log
  { format: 'codex-trace-bundle', test: (h) => /"(wall_time_unix_ms|raw_event_log)"\s*:/.test(h) },
  // a `session.start` naming its CLI version or producer, or an events.jsonl whose records have `data`
  { format: 'copilot-cli', test: (h, name) => /"copilotVersion"\s*:|"producer"\s*:\s*"copilot/.test(h) || (name === 'events.jsonl' && /"data"\s*:/.test(h)) },
  // a Gemini CLI session (its record's `projectHash`), or a `/chat save` checkpoint of Content (`parts` arrays, or a leading `history` array)
  { format: 'gemini-cli', test: (h) => /"projectHash"\s*:|"parts"\s*:\s*\[|^\s*\{\s*"history"\s*:\s*\[/.test(h) },
  { format: 'agentops', test: (h) => /"span_attributes"\s*:/.test(h) },
  // a record `{timestamp, message: {type: "TurnBegin", payload}}` (wire types are PascalCase), or the metadata line `{type, protocol_version}`;
  // never any `"message": {` (chat logs and Claude Code records have one)
  { format: 'kimi', test: (h) => /"message"\s*:\s*\{\s*"type"\s*:\s*"[A-Z][A-Za-z]+"|"protocol_version"\s*:/.test(h) },
  // Kimi Code: the metadata line (`protocol_version`), or a record whose dotted type is one of its kinds
  { format: 'kimi-code', test: (h) => /"protocol_version"\s*:|"type"\s*:\s*"[a-z_A-Z]+\.[a-z_A-Z.]+"/.test(h) },
  // a kimi-cli context.jsonl: its bookkeeping records
  { format: 'kimi-context', test: (h) => /"role"\s*:\s*"_(system_prompt|checkpoint|usage)"/.test(h) },
  { format: 'jaeger', test: (h) => /"traceID"\s*:/.test(h) },
  { format: 'langfuse', test: (h) => /"observations"\s*:\s*\[|"parentObservationId"\s*:/.test(h) },
  { format: 'langsmith', test: (h) => /"run_type"\s*:/.test(h) },
  { format: 'mast', test: (h) => /"(mas_name|mast_annotation)"\s*:|"trajectory"\s*:\s*\[/.test(h) },
  { format: 'openai-agents', test: (h) => /"object"\s*:\s*"trace|"span_data"\s*:/.test(h) },
  // OTLP `resourceSpans` (or `resourceLogs` of GenAI events), or a file exporter's SDK-serialized spans (GitHub Copilot) with a `spanId`
  { format: 'otel-genai', test: (h) => /"(resourceSpans|resource_spans|resourceLogs|resource_logs|spanId)"\s*:/.test(h) },
  { format: 'phoenix', test: (h) => /"context"\s*:\s*\{\s*"(trace_id|span_id)"|"context\.span_id"\s*:/.test(h) },
  { format: 'who-and-when', test: (h) => /"history"\s*:\s*\[/.test(h) },
  { format: 'zipkin', test: (h) => /"traceId"\s*:/.test(h) },
];

/**
 * The built-in formats whose detector might accept a file, by its name and the start of its text.
 * @param head the start of the file's text; only its first {@link SNIFF_CHARS} characters are read.
 * @param fileName the file's path or name (`*.otrace.json`/`*.otrace.jsonl` are traces by name).
 * @returns the ids of the formats whose sign the text shows (empty: no built-in format detects it).
 */
export function traceSigns(head: string, fileName: string): string[] {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  if (/\.otrace\.jsonl?$/.test(base)) return [base.endsWith('l') ? 'otrace-jsonl' : 'otrace-json'];
  const text = head.length > SNIFF_CHARS ? head.slice(0, SNIFF_CHARS) : head;
  return SIGNS.filter((s) => s.test(text, base)).map((s) => s.format);
}

/**
 * True when a built-in format's detector might accept the file (then the engine decides); false
 * when none can, so no engine is needed to tell. See {@link traceSigns}.
 */
export function mayBeTrace(head: string, fileName: string): boolean {
  return traceSigns(head, fileName).length > 0;
}
