/** Node labels with content: a tool call says its tool and key argument, a message its first words, on the real Claude Code and Codex fixtures. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { buildGraph } from '../../../src/engine/graph-model';
import { eventLabel, LABEL_CHARS, shortLabel, shortPath, toolArgument } from '../../../src/engine/event-labels';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { readTraceJsonl } from '../../../src/trace/read';
import type { TraceEvent } from '../../../src/trace/schema';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

const SESSION = fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const CODEX_SPAWN = fixturePath('cases', '16-codex-spawn-agent', 'rollout-2026-01-01T10-00-00-019f7000-0000-7000-8000-00000000a016.jsonl');

function graphOf(file: string) {
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  return buildGraph(loaded, 'g', Infinity, analyzeTrace(loaded));
}

/** Event id -> its node's label and short label. */
function labelsOf(file: string): Map<string, { label: string; short?: string }> {
  return new Map(graphOf(file).nodes.map((n) => [n.eventId, { label: n.label, ...(n.short ? { short: n.short } : {}) }]));
}

test('the Claude Code session: tool calls say their tool and key argument, messages their speaker and first words, the spawn the lane it starts', () => {
  const labels = labelsOf(SESSION);
  const label = (id: string) => labels.get(id)?.label;
  assert.match(label('942615e0-f369-473f-b323-9c337564c3af')!, /^user: Work on bead spotter-a0y\. Run bd show spotter-a0y/, 'the first prompt');
  assert.deepEqual(labels.get('toolu_01SZB3juMsXcXZbHjVubHiga'), { label: 'Bash: bd show spotter-a0y', short: 'Bash' });
  assert.equal(label('toolu_016BubCytDrE5ACMhyM1JFso'), 'Bash: bd ready');
  // paths relative to the session's folder (metadata.cwd), cut to what names the file
  assert.equal(label('toolu_01B4VzsoavVKwmNuCoSnQMs5'), 'Edit: lib/spotter_web/router.ex');
  assert.equal(label('toolu_01Lc1iXDm3oMyqhyT2LCaMH6'), 'Read: …/session_hook_controller.ex');
  assert.equal(label('toolu_01FJnPD7Y21bN4ZE4pgwaEL4'), 'Grep: Phoenix\\.PubSub|broadcast');
  assert.equal(label('toolu_01UaakwJHSDoCa8mU3tc7Svm'), 'Glob: lib/spotter/services/**/*.ex');
  assert.equal(label('toolu_01Sv2Y2iXQfhUJfCJT7Qy18S'), 'Write: …/active_session_registry.ex');
  assert.equal(label('bf2a0584-c5e1-4bc6-b021-4cc0df587171'), 'Let me explore the existing codebase to understand the current structure.');
  assert.equal(label('toolu_01Y64XEaRvUYinzv9rW9qZXd:spawn'), 'spawn Explore existing codebase', 'the spawn names the lane by what it was asked');
  assert.match(label('toolu_01Y64XEaRvUYinzv9rW9qZXd')!, /^delegate: Explore the codebase to understand/);
  assert.match(label('7f0874fe-1a18-447f-b120-ca222dbb4399')!, /^return: Excellent! Now I have a comprehensive understanding/);
  assert.equal(label('7b6887e9-15c3-485b-98c7-eb986f5abc7f'), 'context compacted');
  assert.equal(label('e894c738-dc7b-4979-9ea4-fe39ac3c97c2:stop'), 'turn ended: handed back', 'a turn end reads as a hand-back, never "task complete"');
  for (const [id, l] of labels) {
    assert.ok(l.label.length <= LABEL_CHARS, `${id}: ${l.label.length} characters`);
    assert.doesNotMatch(l.label, /\n/, id);
    assert.notEqual(l.label, 'message', `${id}: a message with text says its words`);
  }
});

test('a Codex rollout: exec commands and the spawned workers by what they were asked', () => {
  const labels = labelsOf(CODEX_SPAWN);
  assert.equal(labels.get('Franklin/call_fx_franklin_1')?.label, 'exec_command: rg -n "retry|timeout" src/payment');
  assert.equal(labels.get('Ohm/call_fx_ohm_1')?.label, 'exec_command: rg -n "total|lock" src/cart');
  assert.match(labels.get('call_fx_spawn_pay')!.label, /^spawn Franklin \(worker\): Review src\/payment/);
  assert.match(labels.get('user:L4')!.label, /^user: Audit the checkout service/);
});

test('key arguments: shell commands (also as argument lists), apply_patch files, MCP tools, searches, text commands; none from JSON without one', () => {
  assert.equal(toolArgument('shell', '{"command":["bash","-lc","npm test"],"workdir":"/w"}'), 'npm test');
  assert.equal(toolArgument('exec_command', '{"cmd":"cargo build --release","workdir":"/w"}'), 'cargo build --release');
  const patch = '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** End Patch';
  assert.equal(toolArgument('apply_patch', patch), 'src/app.ts +1 more');
  assert.equal(toolArgument('apply_patch', JSON.stringify({ input: patch })), 'src/app.ts +1 more');
  assert.equal(toolArgument('WebSearch', '{"query":"otel genai semantic conventions"}'), 'otel genai semantic conventions');
  assert.equal(toolArgument('WebFetch', '{"url":"https://example.com/a","prompt":"summarise"}'), 'https://example.com/a');
  assert.equal(toolArgument('bash', 'npm run build'), 'npm run build', 'a command written as text');
  assert.equal(toolArgument('TodoWrite', '{"todos":[{"content":"x"}]}'), undefined);
  assert.equal(toolArgument('Read', '{"file_path":"/repo/src/app.ts"}', '/repo'), 'src/app.ts');
  const mcp = { id: 'm', t: 0, type: 'tool_call', agent: 'main', tool: 'mcp__github__create_issue', content: '{"title":"Fix the login page","body":"…"}' } as TraceEvent;
  assert.equal(eventLabel(mcp, true), 'github.create_issue: Fix the login page');
  // a huge input (a Write of a large file): its path read from the head, no parse of it all
  const huge = `{"file_path":"/repo/big.txt","content":"${'x'.repeat(300_000)}`;
  assert.equal(toolArgument('Write', huge, '/repo'), 'big.txt');
  assert.equal(shortPath('/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/averyveryveryverylongfilename.ts'), '…/averyveryveryverylongfilename.ts');
});

test('labels are one line of trace text with controls shown and a length cap; the short form is what comes before the content', () => {
  const h = '\u202Egnp.exe\u0000\u001b[31m';
  const loaded = readTraceJsonl(
    [
      { id: 'a', t: 0, type: 'message', agent: 'lead', from: 'user', content: `please\n\nrun ${h} ${'and more '.repeat(30)}` },
      { id: 'b', t: 1, type: 'tool_call', agent: 'lead', tool: 'Bash', content: JSON.stringify({ command: `echo ${h}` }) },
      { id: 'c', t: 2, type: 'tool_result', agent: 'lead', tool: 'Bash', parent: 'b', content: 'ok' },
    ].map((l) => JSON.stringify(l)).join('\n'),
  );
  const g = buildGraph(loaded, 'h');
  const [a, b] = g.nodes;
  assert.ok(a.label.startsWith('user: please run ⟨U+202E⟩gnp.exe⟨U+0000⟩⟨U+001B⟩[31m and more'), a.label);
  assert.ok(a.label.length <= LABEL_CHARS && a.label.endsWith('…'), a.label);
  assert.equal(a.short, 'user');
  assert.equal(b.label, 'Bash: echo ⟨U+202E⟩gnp.exe⟨U+0000⟩⟨U+001B⟩[31m');
  assert.equal(b.short, 'Bash');
  assert.equal(shortLabel('stop: task_complete'), undefined, 'a stop keeps its whole label');
});
