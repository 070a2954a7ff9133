/**
 * What `@otrace` writes (src/host/chat/answer-text.ts), from the tools' facts of a real trace and of
 * a hostile one: the only links are otrace's cited-event command with one number each; a trace's
 * ids, agent names, messages and paths cannot form a link, an image, HTML or another command; a
 * model's text is shown as plain text, line by line.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { compareMarkdown, findingMarkdown, modelTextMarkdown, summaryMarkdown, whyStoppedMarkdown, type Cite } from '../../../src/host/chat/answer-text';
import { InProcessEngine } from '../../../src/engine/in-process-engine';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');

/** Numbers events from 1, keeping what each number cites. */
function citer(): { cite: Cite; cited: [string, number][] } {
  const cited: [string, number][] = [];
  return { cite: (trace, e) => cited.push([trace, e.index]), cited };
}

/** Every link target in Markdown (`](target)`). */
const targets = (md: string) => [...md.matchAll(/\]\(([^)]*)\)/g)].map((m) => m[1]);

async function factsOf(name: string, input: Record<string, unknown>): Promise<any> {
  const answer = await new InProcessEngine().runTool(name, input);
  assert.ok('result' in answer, JSON.stringify(answer));
  return answer.result;
}

test('the run summary and its problems cite their events by number; the stop comes first', async () => {
  const { cite, cited } = citer();
  const md = summaryMarkdown(cite, await factsOf('otrace_summary', { file: DEMO }), await factsOf('otrace_findings', { file: DEMO, problems_only: true }));
  assert.deepEqual(cited, [[DEMO, 34], [DEMO, 11], [DEMO, 13]]);
  assert.deepEqual(targets(md), ['command:otrace.chat.showEvent?%5B1%5D', 'command:otrace.chat.showEvent?%5B2%5D', 'command:otrace.chat.showEvent?%5B3%5D']);
  assert.match(md, /Ended: stopped \\\(quality met\\\) at \[e35 · orchestrator stop\\, line 36\]/);
  assert.match(md, /`\/explain 0`/);
});

test('why it stopped: the run stop with its verdict and evidence; a finding explained lists its evidence', async () => {
  const { cite } = citer();
  const summary = await factsOf('otrace_summary', { file: DEMO });
  const why = whyStoppedMarkdown(cite, summary, await factsOf('otrace_findings', { file: DEMO, kind: 'stop' }));
  assert.match(why, /\*\*Finding 2: stop \(no failure found\)\*\*/);
  assert.match(why, /Outcome: success/);
  const loop = (await factsOf('otrace_findings', { file: DEMO })).findings[0];
  const explained = findingMarkdown(cite, DEMO, loop);
  assert.equal(targets(explained).length, 7, 'the 7 events of the ping-pong');
  const compared = compareMarkdown(cite, await factsOf('otrace_compare', { a: DEMO, b: DEMO }));
  assert.match(compared, /No divergence/);
});

test("a hostile trace's strings form no link, image, HTML or command", () => {
  const { cite } = citer();
  const evil = '[x](command:workbench.action.terminal.sendSequence?%7B%7D) ![i](http://x/p.png) <img src=x onerror=alert(1)> `code` $(alert)';
  const event = { id: evil, index: 0, type: 'message', agent: evil, line: 1 };
  const facts = {
    trace: { path: `/w/${evil}.jsonl`, format: 'otrace-jsonl', events: 1, agents: 1 },
    summary: { task: evil, ended: { scope: 'run', reason: evil, text: evil, recorded: true }, outcome: { status: 'failure', source: evil } },
    stop_event: event,
  };
  const md = summaryMarkdown(cite, facts, { total: 1, findings: [{ number: 0, kind: 'loop', severity: 'warning', message: evil, event }] });
  assert.deepEqual(targets(md), ['command:otrace.chat.showEvent?%5B1%5D', 'command:otrace.chat.showEvent?%5B2%5D']);
  assert.ok(!/(^|[^\\])<img/.test(md), 'no HTML (only an escaped `\\<img`)');
  assert.ok(!/!\[/.test(md), 'no image (only an escaped `\\!\\[`)');
  assert.ok(!md.includes('](command:workbench'), 'no other command');
  // an end no stop records names whose last words it quotes: a speaker's name is trace text too
  const unrecorded = summaryMarkdown(cite, { ...facts, summary: { ...facts.summary, ended: { scope: 'run', reason: 'unknown', text: evil, recorded: false, speaker: evil } } }, { total: 0, findings: [] });
  assert.match(unrecorded, /'s last words: /);
  assert.deepEqual(targets(unrecorded), ['command:otrace.chat.showEvent?%5B3%5D']);
  assert.ok(!/(^|[^\\])<img/.test(unrecorded) && !/!\[/.test(unrecorded) && !unrecorded.includes('](command:workbench'), unrecorded);
  const finding = findingMarkdown(cite, '/w/t.jsonl', { number: 0, kind: evil, severity: evil, mode: evil, message: evil, evidence: [event], evidence_count: 1 });
  assert.deepEqual(targets(finding), ['command:otrace.chat.showEvent?%5B4%5D']);
});

test("a model's text is plain text, each line kept", () => {
  const md = modelTextMarkdown('The stop at **e35** is sound.\n[click](command:otrace.chat.showEvent?%5B1%5D)\n<b>x</b>');
  assert.deepEqual(targets(md), []);
  assert.equal(md.split('  \n').length, 3);
  assert.ok(!/(^|[^\\])<b>/.test(md), 'no HTML');
});
