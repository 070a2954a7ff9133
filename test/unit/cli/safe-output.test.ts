/**
 * CLI output is safe (issue #11): names and ids from a trace with ESC, BEL, 0x9B, 0x9D and bidi
 * overrides print none of them raw, in text or JSON, and a 5,000-character name is cut.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { safe, safePath } from '../../../src/cli/common';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const FILE = path.relative(ROOT, fixturePath('hostile', 'control-names.otrace.jsonl'));

/** C0 controls but newline, DEL, C1 controls, bidi embeddings/overrides/isolates/marks. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

test('the safe() helper makes controls and bidi visible, keeps a value on one line and cuts long values', () => {
  assert.equal(safe('a\u001b[31mb\u0007\u009b\u009d\u202e\nc'), 'a⟨U+001B⟩[31mb⟨U+0007⟩⟨U+009B⟩⟨U+009D⟩⟨U+202E⟩ c');
  const cut = safe('x'.repeat(5000));
  assert.equal(cut, `${'x'.repeat(120)}…(4,880 more)`);
  assert.equal(safe('😀'.repeat(100), 121), `${'😀'.repeat(60)}…(80 more)`, 'never splits a surrogate pair');
  assert.equal(safe(`${'x'.repeat(115)}\u202e${'y'.repeat(10)}`), `${'x'.repeat(115)}…(18 more)`, 'never splits a ⟨U+…⟩');
});

for (const args of [['validate'], ['stats'], ['stats', '--json'], ['analyze'], ['analyze', '--json']]) {
  test(`otrace ${args.join(' ')} prints no raw control or bidi character, and no 5,000-character name`, () => {
    const r = spawnSync(process.execPath, [CLI, args[0], FILE, ...args.slice(1)], { cwd: ROOT, encoding: 'utf8' });
    const out = r.stdout + r.stderr;
    assert.ok(out.length > 0);
    const bad = RAW.exec(out);
    assert.equal(bad, null, `raw U+${bad?.[0].charCodeAt(0).toString(16)} at ${bad?.index}: ${JSON.stringify(out.slice(Math.max(0, (bad?.index ?? 0) - 20), (bad?.index ?? 0) + 20))}`);
    if (!args.includes('--json')) assert.ok(!out.includes('A'.repeat(200)), 'the long name is cut');
    if (args.includes('--json')) JSON.parse(r.stdout); // still valid JSON
  });
}

test('a file name with a newline or a tab prints them as ⟨U+…⟩: two names never read alike ("new line" and "new\\nline")', () => {
  assert.equal(safePath('runs/new\nline\t1.jsonl'), 'runs/new⟨U+000A⟩line⟨U+0009⟩1.jsonl');
  assert.equal(safePath('new line.jsonl'), 'new line.jsonl');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-names-'));
  const file = path.join(dir, 'new\nline.otrace.jsonl');
  fs.writeFileSync(file, '{"id":"a","t":0,"type":"message","agent":"x","content":"hi"}\n');
  const r = spawnSync(process.execPath, [CLI, 'summary', file], { encoding: 'utf8' });
  assert.equal(r.stdout.split('\n')[0], `${dir}/new⟨U+000A⟩line.otrace.jsonl`);
  fs.rmSync(dir, { recursive: true, force: true });
});
