/** The openable-file policy and the escapes for VS Code's rich surfaces: trace text is untrusted. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { escapeForMessage, escapeIcons, escapeMarkdown, escapeSymbolIcons } from '../../../src/shared/untrusted-text';
import { classifyPath } from '../../../src/engine/path-policy';

function scratch(): { root: string; trace: string; outside: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-policy-')));
  const root = path.join(base, 'workspace');
  fs.mkdirSync(path.join(root, 'runs', 'prompts'), { recursive: true });
  const trace = path.join(root, 'runs', 'run.otrace.jsonl');
  fs.writeFileSync(trace, '');
  fs.writeFileSync(path.join(root, 'runs', 'prompts', 'a.md'), 'prompt');
  fs.writeFileSync(path.join(root, 'notes.md'), 'notes');
  const outside = path.join(base, 'secret.txt');
  fs.writeFileSync(outside, 'secret');
  return { root, trace, outside };
}

test("files in a workspace folder open; others ask, the trace folder's too; missing ones say so", () => {
  const { root, trace, outside } = scratch();
  assert.deepEqual(classifyPath('prompts/a.md', trace, [root]), { kind: 'open', path: path.join(root, 'runs', 'prompts', 'a.md') });
  assert.deepEqual(classifyPath('prompts/a.md', trace, []), { kind: 'ask', path: path.join(root, 'runs', 'prompts', 'a.md') }, 'opening a trace outside the workspace is no consent to open its neighbours');
  assert.deepEqual(classifyPath('run.otrace.jsonl', trace, []), { kind: 'open', path: trace }, 'the trace itself opens');
  assert.deepEqual(classifyPath('../notes.md', trace, [root]), { kind: 'open', path: path.join(root, 'notes.md') });
  assert.equal(classifyPath('../notes.md', trace, []).kind, 'ask', 'outside the trace folder and no workspace');
  assert.deepEqual(classifyPath(outside, trace, [root]), { kind: 'ask', path: outside });
  assert.equal(classifyPath('../../secret.txt', trace, [root]).kind, 'ask');
  assert.equal(classifyPath('/etc/passwd', trace, [root]).kind, 'ask');
  assert.equal(classifyPath('../../../../../../../../etc/passwd', trace, [root]).kind, 'ask');
  assert.deepEqual(classifyPath('prompts/nope.md', trace, [root]), { kind: 'missing', path: path.join(root, 'runs', 'prompts', 'nope.md') });
  assert.deepEqual(classifyPath(`file://${path.join(root, 'notes.md')}`, trace, [root]), { kind: 'open', path: path.join(root, 'notes.md') });
});

test('a symbolic link is judged by where it points', () => {
  const { root, trace, outside } = scratch();
  fs.symlinkSync(outside, path.join(root, 'runs', 'prompts', 'link.md'));
  assert.deepEqual(classifyPath('prompts/link.md', trace, [root]), { kind: 'ask', path: outside });
});

test('links of other schemes are refused', () => {
  const { trace, root } = scratch();
  for (const target of ['command:workbench.action.terminal.new', 'https://example.com/x', 'vscode://file/etc/passwd', 'vscode-remote://x/y']) {
    assert.equal(classifyPath(target, trace, [root]).kind, 'refuse', target);
  }
  // a Markdown link is no scheme: it is a (missing) relative path, never a link
  assert.equal(classifyPath('[Open the prompt](command:workbench.action.terminal.new)', trace, [root]).kind, 'missing');
});

test('escapes: no Markdown link, HTML, icon or control character survives', () => {
  const hostile = '[x](command:workbench.action.terminal.new) $(alert) <img src=x onerror=alert(1)> **b** `c` \u001b[31m\u202e';
  const md = escapeMarkdown(hostile);
  assert.ok(!/(^|[^\\])\[/.test(md) && !/(^|[^\\])</.test(md) && !/(^|[^\\])`/.test(md), md);
  assert.ok(!md.includes('\u001b') && !md.includes('\u202e'));
  assert.ok(md.includes('⟨U\\+001B⟩'), 'the escape character is shown as ⟨U+001B⟩');
  const icons = escapeIcons(hostile);
  assert.ok(icons.includes('\\$(alert)') && !/(^|[^\\])\$\(/.test(icons));
  // a symbol's name: no icon (VS Code's icon syntax is `$(` then a name), nothing seen added, controls shown
  const symbol = escapeSymbolIcons(hostile);
  assert.ok(!symbol.includes('$(') && symbol.includes('$\u2060(alert)') && symbol.replace(/\u2060/g, '').includes('$(alert)'), symbol);
  assert.ok(!symbol.includes('\u202e') && symbol.includes('⟨U+202E⟩'));
  const message = escapeForMessage(hostile);
  assert.ok(!/[[\]()<>]/.test(message), message);
  assert.ok(!/command:[^\u200b]/.test(message), 'no link-like scheme');
  assert.ok(escapeForMessage('x'.repeat(500)).length <= 200);
});

test("a trace's own files (its sub-agent transcripts) open wherever they are; their neighbours ask", () => {
  const { root, trace } = scratch();
  fs.mkdirSync(path.join(root, 'runs', 'subagents'));
  fs.writeFileSync(path.join(root, 'runs', 'subagents', 'agent-1.jsonl'), '');
  fs.writeFileSync(path.join(root, 'runs', 'subagents', 'secret.txt'), '');
  const files = ['', 'subagents/agent-1.jsonl'];
  assert.equal(classifyPath('subagents/agent-1.jsonl', trace, [], files).kind, 'open');
  assert.equal(classifyPath(path.join(root, 'runs', 'subagents', 'agent-1.jsonl'), trace, [], files).kind, 'open');
  assert.equal(classifyPath('subagents/secret.txt', trace, [], files).kind, 'ask');
  assert.equal(classifyPath('subagents/agent-1.jsonl', trace, []).kind, 'ask', 'not one of its files: asks');
});

test('a trace saved in the home folder does not make the whole home folder open without asking', () => {
  const { root } = scratch();
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key');
  fs.writeFileSync(path.join(home, 'run.jsonl'), '');
  const before = process.env.HOME;
  process.env.HOME = home;
  try {
    assert.equal(classifyPath('.ssh/id_rsa', path.join(home, 'run.jsonl'), []).kind, 'ask');
    assert.equal(classifyPath('.ssh/id_rsa', path.join(home, 'run.jsonl'), [home]).kind, 'open', 'unless the home folder is the workspace');
  } finally {
    process.env.HOME = before;
  }
});
