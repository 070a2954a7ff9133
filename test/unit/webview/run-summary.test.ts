/** The run summary's words (webview/run-summary.ts): plain, short, and never a verdict the trace does not hold. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentWords, endedLinkWords, endedWords, lastWordsLead, noProblemWords, problemWords, spentTokens, spentWords, STILL_WRITTEN, stillWrittenLead, tokenWords } from '../../../webview/run-summary';

test('how it ended: a hand-back is a turn end, not a completed task; a run stop says its reason in words', () => {
  assert.equal(endedWords({ index: 3, scope: 'turn', reason: 'task_complete', text: '', recorded: true }), 'turn ended: handed back to the user');
  // A turn something cut short is no hand-back (a Kimi turn ended by an API error said "handed back to the user").
  assert.equal(endedWords({ index: 3, scope: 'turn', reason: 'error', text: '', recorded: true }), 'turn ended by an error');
  assert.equal(endedWords({ index: 3, scope: 'turn', reason: 'user_abort', text: '', recorded: true }), 'turn ended: the user stopped it');
  assert.equal(endedWords({ index: 3, scope: 'run', reason: 'loop_breaker', text: '', recorded: true }), 'run stopped: loop breaker');
  // the agent's claim is said as its claim (an OTel run whose email failed read "run stopped: task complete")
  assert.equal(endedWords({ index: 3, scope: 'run', reason: 'task_complete', text: '', recorded: true }), 'run stopped: the agent said the task is complete');
  // No stop event in the file: never "run stopped: unknown" with the last tool output as its words.
  assert.equal(endedWords({ index: 9, scope: 'run', reason: 'unknown', text: '', recorded: false }), 'no stop at its end: it ends after its last event');
  assert.match(endedWords({ index: 9, scope: 'run', reason: 'unknown', text: '', recorded: false, unended: 'cut off' }), /^not known: the file is cut off inside a record/);
  assert.equal(endedWords({ index: 3, scope: 'run', reason: 'unknown', text: '', recorded: true }), 'run stopped: reason unknown');
  assert.equal(endedWords(null), 'no stop recorded');
});

test("a sub-agent's own file opened alone says so: its turn hands back to the agent that spawned it, not the user; its one agent is a sub-agent of its parent, whose file holds the whole run", () => {
  const turn = { index: 4, scope: 'turn' as const, reason: 'task_complete', text: '', recorded: true };
  assert.equal(endedWords(turn, 'thread 019f7000-a016'), 'turn ended: handed back to the agent that spawned it');
  assert.equal(endedWords(turn), 'turn ended: handed back to the user');
  assert.equal(endedWords({ ...turn, reason: 'error' }, 'thread 019f7000-a016'), 'turn ended by an error');
  const agents = [{ name: 'worker:Ohm', label: null, task: null, events: 5 }];
  assert.equal(agentWords(agents, 1, 'thread 019f7000-a016'), 'one agent, worker:Ohm (5 events): a sub-agent of thread 019f7000-a016, whose file holds the whole run');
  assert.equal(agentWords(agents), 'one agent, worker:Ohm (5 events)');
});

test('a file still being written with no stop yet says so once: its Ended link is "the last event" (it read "not yet: still being written · so far: not yet: still being written")', () => {
  const live = { index: 9, scope: 'run' as const, reason: 'unknown', text: '', recorded: false, unended: 'in progress' as const };
  assert.equal(endedLinkWords(live, true), 'the last event');
  // a stop recorded so far keeps its words; a file no longer written says how it ended
  const stop = { index: 3, scope: 'run' as const, reason: 'task_complete', text: '', recorded: true };
  assert.equal(endedLinkWords(stop, true), 'run stopped: the agent said the task is complete');
  assert.equal(endedLinkWords({ ...live, unended: undefined }, false), 'no stop at its end: it ends after its last event');
});

test("the words of an end no stop records name their speaker (a sub-agent's words read as the run's last words)", () => {
  const last = { index: 9, scope: 'run' as const, reason: 'unknown', text: 'The hooks live in src/hooks.ts.', recorded: false, speaker: 'Explore:a93ccab' };
  assert.equal(lastWordsLead(last), "Explore:a93ccab's last words: ");
  assert.equal(lastWordsLead({ ...last, speaker: undefined }), 'its last words: ');
  // a stop's own words need no lead; a speaker's name is trace text: one plain line, clipped
  assert.equal(lastWordsLead({ ...last, recorded: true }), '');
  const long = lastWordsLead({ ...last, speaker: 'a\nb'.repeat(40) });
  assert.ok(long.length < 80 && !long.includes('\n'), long);
});

test('a run still being written: a recorded stop or outcome right after "so far:" (a narrow panel cut it after "not yet: still being written · so far:"); with none, "not yet" and its last event', () => {
  const stop = { index: 3, scope: 'run' as const, reason: 'task_complete', text: '', recorded: true };
  assert.deepEqual(stillWrittenLead({ outcome: null, ended: stop }), { lead: 'so far:', then: ' ' });
  assert.deepEqual(stillWrittenLead({ outcome: { status: 'success', source: 'reward event r2' }, ended: null }), { lead: 'so far:', then: ' ' });
  const last = { index: 9, scope: 'run' as const, reason: 'unknown', text: '', recorded: false, unended: 'in progress' as const };
  assert.deepEqual(stillWrittenLead({ outcome: null, ended: last }), { lead: STILL_WRITTEN, then: ' · ' });
  assert.deepEqual(stillWrittenLead({ outcome: null, ended: null }), { lead: STILL_WRITTEN, then: '' });
});

test('tokens in short form, kinds no call recorded left out', () => {
  assert.equal(tokenWords({ input: 1627, output: 44444, cache_read: 16175673, cache_write: null, reasoning: 0 }), '1.6K input · 44.4K output · 16.2M cache read tokens');
  assert.equal(tokenWords({ input: null, output: null, cache_read: null, cache_write: null, reasoning: null }), '');
  // reasoning is part of the output (a Codex turn: 14.6K output of which 4.3K reasoning), never listed beside it as if they added up
  assert.equal(tokenWords({ input: 99500, output: 14600, cache_read: null, cache_write: null, reasoning: 4300 }), '99.5K input · 14.6K output (4.3K of it reasoning) tokens');
  assert.equal(tokenWords({ input: null, output: null, cache_read: null, cache_write: null, reasoning: 4300 }), '4.3K reasoning tokens');
});

test("Spent: tokens by kind; else the events' own counts with no kind (the demo: a loop said “550 tokens” beside “no token counts”); else none", () => {
  const none = { input: null, output: null, cache_read: null, cache_write: null, reasoning: null };
  assert.equal(spentTokens({ tokens: { ...none, input: 1200 }, eventTokens: 99 }), '1.2K input tokens');
  assert.equal(spentTokens({ tokens: none, eventTokens: 4810 }), '4,810 tokens (no kind recorded)');
  assert.equal(spentTokens({ tokens: none, eventTokens: null }), 'no token counts in the trace');
  // a benchmark log of 10 records, steps 0 to 9: its span (9) read as "9 steps" by a user counting 10
  assert.equal(spentWords({ duration: { value: 9, unit: 'steps', from: 0 }, tokens: none, eventTokens: null }), 'steps 0–9 · no token counts in the trace');
  assert.equal(spentWords({ duration: { value: 481, unit: 'seconds', from: 12 }, tokens: none, eventTokens: 5 }), '8 min 1 s · 5 tokens (no kind recorded)');
  // a file cut off inside a record: its figures are of the part it holds, not the run's totals
  const cutOff = { index: 18, scope: 'run' as const, reason: 'unknown', text: '', recorded: false, unended: 'cut off' as const };
  assert.equal(spentWords({ duration: { value: 21, unit: 'seconds', from: 0 }, tokens: none, eventTokens: 1880, ended: cutOff }), '21 s · 1,880 tokens (no kind recorded) · of the part of the run the file holds (it is cut off)');
});

test('agents: one agent said so; several named by what they were asked to be, the rest counted; controls in names shown, not run', () => {
  assert.equal(agentWords([{ name: 'codex', label: null, task: null, events: 277 }]), 'one agent, codex (277 events)');
  assert.equal(agentWords([{ name: 'human', label: null, task: null, events: 1 }, { name: 'bot', label: null, task: null, events: 9 }]), '2 agents: human (1 event) · bot (9)', 'one event is "1 event"');
  const six = ['main', 'a', 'b', 'c', 'd', 'e'].map((name, i) => ({ name, label: i === 1 ? 'Explore: find\u202Ethe config' : null, task: null, events: 10 - i }));
  assert.equal(agentWords(six), '6 agents: main (10 events) · Explore: find⟨U+202E⟩the config (9) · b (8) · c (7) · 2 more');
  // a run of a million agents lists its busiest: the count is the run's, the rest counted from it
  assert.equal(agentWords(six, 1_000_000), '1,000,000 agents: main (10 events) · Explore: find⟨U+202E⟩the config (9) · b (8) · c (7) · 999,996 more');
  const withCompaction = [{ name: 'main', label: null, task: null, events: 512 }, { name: 'Explore:a', label: 'Explore existing codebase', task: null, events: 63 }, { name: 'compact:c', label: 'context compaction', task: null, events: 3 }];
  assert.equal(agentWords(withCompaction), '2 agents · 1 context compaction: main (512 events) · Explore existing codebase (63) · context compaction (3)');
});

test('no problems is said of the run, and reading warnings are named as such (a stranger read "1 warning" and "no problems found" as a contradiction)', () => {
  assert.equal(noProblemWords({ errors: 0, warnings: 0 }), 'no problems found in the run');
  assert.equal(noProblemWords({ errors: 0, warnings: 1 }), 'no problems found in the run (1 warning reading the file: see Problems)');
  assert.equal(noProblemWords({ errors: 2, warnings: 1 }), 'no problems found in the run (3 problems reading the file: see Problems)');
});

test('Problems: a failed call is never hidden behind "no problems found"; with findings it is counted after them', () => {
  const clean = { errors: 0, warnings: 0 };
  assert.deepEqual(problemWords({ findings: [] }, clean), { text: 'no problems found in the run', tone: 'ok' });
  // the summary holds the first five findings; "and N more" counts every one the list below shows
  const five = Array.from({ length: 5 }, () => ({ kind: 'loop', severity: 'warning' as const, message: 'Orchestrator repeated nearly the same step' }));
  assert.match(problemWords({ findings: five, findingCount: 6 }, clean).text, /\(and 5 more, listed below\)$/);
  assert.match(problemWords({ findings: five }, clean).text, /\(and 4 more, listed below\)$/);
  assert.deepEqual(problemWords({ findings: [], agents: [] }, { errors: 1, warnings: 0 }), { text: 'nothing to judge: the trace has no events (see Problems)', tone: 'info' }, 'an empty file is no run found clean');
  const failedCalls = { count: 1, index: 12, tool: 'send_email', error: '535 authentication failed\u202e' };
  assert.deepEqual(problemWords({ findings: [], failedCalls }, clean), { text: '⚠ no finding, but 1 tool call recorded a failure; the first: send_email: 535 authentication failed⟨U+202E⟩', tone: 'warning' });
  const loop = { kind: 'loop', severity: 'warning' as const, message: 'ping-pong' };
  assert.deepEqual(problemWords({ findings: [loop, loop], failedCalls: { ...failedCalls, count: 3 } }, clean), { text: '⚠ ping-pong (and 1 more, listed below) · 3 tool calls recorded a failure', tone: 'warning' });
});

test('no time spent is said with its unit ("Spent 0" read as a count)', () => {
  assert.match(spentWords({ duration: { value: 0, unit: 'seconds', from: 0 }, tokens: { input: null, output: null, cache_read: null, cache_write: null, reasoning: null }, eventTokens: null }), /^0 s · /);
});
