/**
 * Registers the importers of other tools' trace formats with the format registry.
 * Import this module once (the CLI and the extension do) before calling `loadTrace`.
 * Each importer module calls `registerFormat` when loaded.
 */
import './agentops';
import './claude-code';
import './jaeger';
import './kimi';
import './kimi/code';
import './kimi/context';
import './langfuse';
import './langsmith';
import './codex';
import './codex-trace-bundle';
import './copilot-cli';
import './gemini-cli';
import './otel';
import './who-and-when';
import './zipkin';
import './mast';
import './openai-agents';
import './phoenix';
