/**
 * `otrace mcp` (issue 29, item 4): the MCP SDK's own client, over stdio, spawning `node dist/cli.js
 * mcp` (built by the test run), lists the five tools with the input schemas VS Code gets, and calls
 * each one on the demo and the Claude Code fixture: the facts are the engine's, the summary priced
 * as `otrace summary` prices it; a missing file or a bad input is a tool error, not a crash.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CHAT_TOOL_NAMES, toolInputJsonSchema } from '../../../src/engine/chat-tools';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
/** Relative to the server's directory (ROOT), as an agent working there names them. */
const DEMO = 'samples/demo.otrace.jsonl';
const CLAUDE = 'test/fixtures/claude-code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl';

let client: Client;

before(async () => {
  client = new Client({ name: 'otrace-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: ROOT, stderr: 'pipe' }));
});

after(async () => {
  await client.close();
});

/** Calls a tool; its JSON facts (fails on a tool error). */
async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  assert.ok(!r.isError, `${name}: ${r.content[0]?.text}`);
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0].type, 'text');
  return JSON.parse(r.content[0].text);
}

test('lists the five tools with the input schemas VS Code gets, read-only', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), [...CHAT_TOOL_NAMES]);
  for (const t of tools) {
    const { $schema: _, ...schema } = t.inputSchema as Record<string, unknown>;
    assert.deepEqual(schema, toolInputJsonSchema(t.name as never), t.name);
    assert.ok(t.description && t.description.length > 100, `${t.name} is described`);
    assert.equal(t.annotations?.readOnlyHint, true);
  }
});

test('calls each tool on the demo and the Claude Code session', async () => {
  const summary = await call('otrace_summary', { file: DEMO });
  assert.deepEqual([summary.trace.path, summary.trace.events, summary.summary.ended.reason], [path.join(ROOT, DEMO), 35, 'quality_met']);
  assert.equal(summary.stop_event.id, 'e35');
  const claude = await call('otrace_summary', { file: CLAUDE });
  assert.equal(claude.trace.format, 'claude-code');
  assert.ok(claude.summary.cost && claude.summary.cost.estimate === true && claude.summary.cost.usd > 1 && claude.summary.cost.usd < 2, `priced as otrace summary prices it: ${JSON.stringify(claude.summary.cost)}`);
  assert.deepEqual(claude.summary.cost.models, ['claude-opus-4-6', 'claude-haiku-4-5-20251001']);

  const findings = await call('otrace_findings', { file: DEMO, problems_only: true });
  assert.equal(findings.total, 2);
  assert.deepEqual(findings.findings.map((f: any) => f.event.id), ['e12', 'e14']);

  const blame = await call('otrace_blame', { file: DEMO, outcome: 'failure', max: 1 });
  assert.equal(blame.blame.event.id, 'e32');
  assert.equal(blame.credit.most_blamed.length, 1);

  const events = await call('otrace_events', { file: CLAUDE, from: 3, limit: 2, content_chars: 20 });
  assert.deepEqual(events.events.map((e: any) => [e.index, e.tool, e.content.length, e.content_length]), [[3, 'Bash', 20, 182], [4, 'Bash', 20, 181]]);
  assert.equal(events.next_from, 5);

  const compared = await call('otrace_compare', { a: DEMO, b: DEMO });
  assert.equal(compared.first_divergence, null);
  assert.equal(compared.steps.same, 35);
});

test('a call without a file, with a missing file or with a bad input is a tool error; the server goes on', async () => {
  const error = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`);
    return r.content[0].text;
  };
  assert.match(await error('otrace_summary', {}), /no trace is in view/);
  assert.match(await error('otrace_summary', { file: 'no/such/run.jsonl' }), /no such file/);
  assert.match(await error('otrace_events', { file: DEMO, limit: 1000 }), /limit/);
  const after = await call('otrace_summary', { file: DEMO });
  assert.equal(after.trace.events, 35);
});

test('trace content reaches the client with its bidi overrides and C1 controls escaped (\\u202e), never raw', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-mcp-')), 'bidi.otrace.jsonl');
  const prompt = 'pay \u202eevil\u202c now \u0085';
  fs.writeFileSync(file, [JSON.stringify({ id: 'u', t: 0, type: 'message', agent: 'user', from: 'user', content: prompt }), JSON.stringify({ id: 'a', t: 1, type: 'message', agent: 'bot', content: `done: ${prompt}` }), JSON.stringify({ id: 's', t: 2, type: 'stop', agent: 'bot', reason: 'task_complete' })].join('\n') + '\n');
  for (const [name, args] of [['otrace_summary', { file }], ['otrace_events', { file }], ['otrace_compare', { a: file, b: file }]] as const) {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    assert.ok(!r.isError, r.content[0]?.text);
    const text = r.content[0].text;
    assert.doesNotMatch(text, /[\u0080-\u009f\u202a-\u202e]/, `${name} answers no raw control`);
    assert.match(text, /\\u202e/, `${name} says where it was`);
    assert.equal(JSON.stringify(JSON.parse(text)).includes('\u202e'), true, `${name}: the same text once parsed`);
  }
});
