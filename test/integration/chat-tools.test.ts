/**
 * otrace's facts in the chat, in a real VS Code (issue 29, item 3): each language model tool,
 * called through `vscode.lm.invokeTool` with no chat model and no chat request, answers the facts
 * of the demo trace in view (samples/demo.otrace.jsonl) and of the Claude Code fixture named by a
 * path relative to the workspace folder; a file outside the workspace that is not open is refused.
 * `@otrace` answers (without a model) with links that carry one number each, and running a link's
 * command selects the cited event for the graph and the text.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
/** Relative to the workspace folder (test/fixtures), as a model would name it. */
const CLAUDE_REL = 'claude-code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl';
const CLAUDE = path.join(ROOT, 'test', 'fixtures', CLAUDE_REL);

/** Calls a tool as a model's request would, with no chat request behind it; its JSON facts. */
async function invoke(name: string, input: Record<string, unknown>): Promise<any> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  assert.equal(result.content.length, 1, `${name} answers one part`);
  const part = result.content[0];
  assert.ok(part instanceof vscode.LanguageModelTextPart, `${name} answers text`);
  return JSON.parse(part.value);
}

describe('chat tools', function () {
  let api: OtraceApi;

  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(DEMO), { preview: false });
    await until('the demo read', () => api.sessions.peek(editor.document.uri));
  });

  it('lists the five tools with their input schemas', () => {
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('otrace_'));
    assert.deepEqual(ours.map((t) => t.name).sort(), ['otrace_blame', 'otrace_compare', 'otrace_events', 'otrace_findings', 'otrace_summary']);
    const compare = ours.find((t) => t.name === 'otrace_compare')!;
    assert.deepEqual((compare.inputSchema as any).required, ['b']);
  });

  it('answers the summary, findings, blame, events and a comparison of the demo in view', async () => {
    const summary = await invoke('otrace_summary', {});
    assert.equal(summary.trace.path, DEMO);
    assert.equal(summary.trace.events, 35);
    assert.equal(summary.summary.task, 'Write a one-page report on global EV sales in 2023 and 2024, with sources.');
    assert.deepEqual([summary.summary.ended.reason, summary.summary.ended.scope], ['quality_met', 'run']);
    assert.deepEqual(summary.summary.outcome, { status: 'success', source: 'reward event e34' });
    assert.deepEqual(summary.stop_event, { id: 'e35', index: 34, type: 'stop', agent: 'orchestrator', line: 36 });

    const findings = await invoke('otrace_findings', { problems_only: true });
    assert.equal(findings.total, 2);
    const pingPong = findings.findings[0];
    assert.equal(pingPong.kind, 'loop');
    assert.equal(pingPong.wasted_tokens, 550);
    assert.deepEqual(pingPong.event, { id: 'e12', index: 11, type: 'return', agent: 'researcher', line: 13 });
    assert.deepEqual(pingPong.evidence.map((e: any) => e.id), ['e12', 'e13', 'e16', 'e17', 'e20', 'e21', 'e24']);

    const noBlame = await invoke('otrace_blame', {});
    assert.equal(noBlame.blame, null);
    assert.match(noBlame.why_none, /did not fail/);
    const blame = await invoke('otrace_blame', { outcome: 'failure', max: 3 });
    assert.equal(blame.outcome.status, 'failure');
    assert.equal(blame.blame.event.id, 'e32');
    assert.equal(blame.blame.agent, 'critic');
    assert.equal(blame.credit.most_blamed.length, 3);
    assert.ok(blame.credit.most_blamed.every((e: any) => e.value < 0), 'the most blamed events have negative credit');

    const events = await invoke('otrace_events', { from: 11, limit: 3, content_chars: 10 });
    assert.deepEqual(events.events.map((e: any) => [e.id, e.index, e.agent]), [['e12', 11, 'researcher'], ['e13', 12, 'orchestrator'], ['e14', 13, 'researcher']]);
    assert.equal(events.next_from, 14);
    assert.ok(events.events.every((e: any) => e.content === null || e.content.length <= 10), 'content cut to 10 characters');
    assert.deepEqual(events.events[0].findings.map((f: any) => f.kind), ['loop']);

    const compared = await invoke('otrace_compare', { b: CLAUDE_REL, max: 2 });
    assert.deepEqual([compared.a.trace.path, compared.a.events, compared.b.events, compared.b.format], [DEMO, 35, 196, 'claude-code']);
    assert.equal(compared.steps.same, 0);
    assert.equal(compared.differences.first.length, 2);
  });

  it('answers for the Claude Code fixture named by a path in the workspace', async () => {
    const summary = await invoke('otrace_summary', { file: CLAUDE_REL });
    assert.deepEqual([summary.trace.path, summary.trace.format, summary.trace.events, summary.trace.agents], [CLAUDE, 'claude-code', 196, 4]);
    assert.match(summary.summary.task, /^Work on bead spotter-a0y/);
    assert.deepEqual([summary.summary.ended.scope, summary.summary.ended.reason], ['turn', 'task_complete']);
    assert.ok(summary.summary.agents.some((a: any) => a.label === 'context compaction'), 'agents labelled as their lanes');
    assert.equal(summary.summary.tokens.output, 10_982);

    const findings = await invoke('otrace_findings', { file: CLAUDE_REL });
    assert.ok(findings.findings.length > 0);
    assert.ok(findings.findings.every((f: any) => f.event && typeof f.event.index === 'number'));
    const events = await invoke('otrace_events', { file: CLAUDE, from: 3, limit: 2, content_chars: 50 });
    assert.deepEqual(events.events.map((e: any) => [e.index, e.type, e.tool]), [[3, 'tool_result', 'Bash'], [4, 'tool_result', 'Bash']]);
    assert.equal(events.events[0].content.length, 50);
    assert.equal(events.events[0].content_length, 182);
    const blame = await invoke('otrace_blame', { file: CLAUDE_REL });
    assert.equal(blame.blame, null);
    assert.equal(blame.credit.signed, false);
  });

  it('refuses a file outside the workspace that is not open, and a bad input', async () => {
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-chat-')), 'run.otrace.jsonl');
    fs.copyFileSync(DEMO, outside);
    await assert.rejects(invoke('otrace_summary', { file: outside }), /outside the workspace/);
    await assert.rejects(invoke('otrace_events', { from: -1 }), /from/);
  });

  it('@otrace answers with event links that select the event', async () => {
    const answer = await api.chat.answer(undefined, '');
    assert.ok(!('error' in answer), JSON.stringify(answer));
    assert.match(answer.markdown, /Write a one\\-page report/);
    const links = [...answer.markdown.matchAll(/\]\(command:otrace\.chat\.showEvent\?([^)]*)\)/g)].map((m) => JSON.parse(decodeURIComponent(m[1])));
    assert.ok(links.length >= 3, `links: ${links.length}`);
    assert.ok(links.every((args) => Array.isArray(args) && args.length === 1 && Number.isInteger(args[0])), 'each link carries one number');
    // the first link is the stop event e35 (index 34)
    await vscode.commands.executeCommand('otrace.chat.showEvent', links[0][0]);
    const selected = await until('the cited event selected', () => (api.selection.selection?.index === 34 ? api.selection.selection : undefined));
    assert.equal(selected.trace, vscode.Uri.file(DEMO).toString());

    const why = await api.chat.answer('why-stopped', '');
    assert.ok(!('error' in why));
    assert.match(why.markdown, /quality\\_met/);
    const explain = await api.chat.answer('explain', '1');
    assert.ok(!('error' in explain));
    assert.match(explain.markdown, /Finding 1/);
    const compare = await api.chat.answer('compare', CLAUDE_REL);
    assert.ok(!('error' in compare));
    assert.match(compare.markdown, /196 events/);
  });
});
