/**
 * Mapping-file globs (src/trace/glob.ts): the same matches as the RegExp translation they replaced
 * (`*` and `?` inside one folder, `**` across folders, matched on the path's last segments), in
 * time linear in the path whatever the glob, and a length limit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { globMatches, globProblem, MAX_GLOB_LENGTH } from '../../../src/trace/glob';

/** The RegExp translation the matcher replaced (exponential on runs of `*`; used here on small globs only, as the reference). */
function oldGlobRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0001').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/\\\\]*').replace(/\?/g, '[^/\\\\]').replace(/\u0001/g, '(?:.*[/\\\\])?').replace(/\u0000/g, '.*');
  return new RegExp(`(^|[/\\\\])${re}$`);
}

test('glob: the documented matches (file name, folder, any folders, ? and * inside one folder)', () => {
  const cases: [string, string, boolean][] = [
    ['*.runlog.jsonl', '/w/a/crew.runlog.jsonl', true],
    ['*.runlog.jsonl', '/w/a/crew.jsonl', false],
    ['*.runlog.jsonl', 'crew.runlog.jsonl', true],
    ['runs/*.jsonl', '/w/runs/x.jsonl', true],
    ['runs/*.jsonl', '/w/runs/sub/x.jsonl', false],
    ['runs/*.jsonl', '/w/myruns/x.jsonl', false],
    ['**/x.jsonl', '/w/logs/sub/x.jsonl', true],
    ['**/x.jsonl', 'x.jsonl', true],
    ['**/x.jsonl', '/w/logs/subx.jsonl', false],
    ['logs/**/x.jsonl', '/w/logs/x.jsonl', true],
    ['logs/**/x.jsonl', '/w/logs/a/b/x.jsonl', true],
    ['logs/**', '/w/logs/a/b/x.jsonl', true],
    ['**', '/anything/at/all', true],
    ['***/x.jsonl', '/w/x.jsonl', true],
    ['a?c.jsonl', '/w/abc.jsonl', true],
    ['a?c.jsonl', '/w/a/c.jsonl', false],
    ['*', '/w/x', true],
    ['*', '/w/', true], // the empty name after the last separator, as before
    ['x.jsonl', '/w/xxjsonl', false],
    ['[a].(b)+{c}$^|.jsonl', '/w/[a].(b)+{c}$^|.jsonl', true],
    ['[a].jsonl', '/w/a.jsonl', false],
    ['team-log.jsonl', 'C:\\w\\team-log.jsonl', true],
    ['runs\\*.jsonl', 'C:\\w\\runs\\x.jsonl', true],
  ];
  for (const [glob, file, expected] of cases) assert.equal(globMatches(glob, file), expected, `${glob} on ${file}`);
});

test('glob: the same answers as the RegExp it replaced, on random globs and paths (fast-check, seeded)', () => {
  const char = fc.constantFrom('a', 'b', '.', '/', '*', '?', 'x', '-', '(', '[');
  const pathChar = fc.constantFrom('a', 'b', '.', '/', 'x', '-', '(', '[');
  fc.assert(
    fc.property(fc.array(char, { maxLength: 12 }), fc.array(pathChar, { maxLength: 16 }), (g, p) => {
      const glob = g.join('');
      if (!glob || (glob.match(/\*/g)?.length ?? 0) > 6) return;
      const file = p.join('');
      assert.equal(globMatches(glob, file), oldGlobRegExp(glob).test(file), `${JSON.stringify(glob)} on ${JSON.stringify(file)}`);
    }),
    { seed: 23, numRuns: 5000 },
  );
});

test('glob: 50 * against a 200-character name answers in under 10 ms; 330 hostile matches take well under a second of CPU', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'glob-timing.ts')], { encoding: 'utf8', timeout: 20_000 });
  assert.notEqual(r.signal, 'SIGTERM', 'the hostile globs did not finish within 20 s');
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as { fifty: boolean; fiftyMs: number; hostile: number; matched: number; totalMs: number };
  process.stdout.write(`# 50 stars x 200 chars: ${m.fiftyMs.toFixed(2)} ms; ${m.hostile} hostile matches: ${m.totalMs.toFixed(1)} ms of CPU\n`);
  assert.equal(m.fifty, false);
  assert.ok(m.fiftyMs < 10, `50 stars: ${m.fiftyMs} ms`);
  assert.equal(m.hostile, 330);
  assert.equal(m.matched, 33, 'the `*...b`, `**/...b` and `*/...b` globs match a/a/.../b, no other pair');
  assert.ok(m.totalMs < 500, `hostile globs: ${m.totalMs} ms of CPU`);
});

test('glob: a glob over the length limit is refused and matches nothing; an empty one too', () => {
  const long = `${'a'.repeat(MAX_GLOB_LENGTH)}*`;
  assert.match(globProblem(long)!, new RegExp(`at most ${MAX_GLOB_LENGTH} characters long, not ${MAX_GLOB_LENGTH + 1}`));
  assert.equal(globMatches(long, `/w/${'a'.repeat(MAX_GLOB_LENGTH)}x`), false);
  assert.equal(globProblem('a'.repeat(MAX_GLOB_LENGTH)), undefined);
  assert.equal(globMatches('a'.repeat(MAX_GLOB_LENGTH), `/w/${'a'.repeat(MAX_GLOB_LENGTH)}`), true);
  assert.ok(globProblem(''));
  assert.equal(globMatches('', '/w/x'), false);
});

test('glob: a mapping file whose files.glob is over the limit gets an error at the glob, and the mapping reads nothing', async () => {
  const { parseMapping } = await import('../../../src/trace/mapping');
  const { chooseMapping } = await import('../../../src/trace/mapping-choice');
  const glob = `${'*'.repeat(MAX_GLOB_LENGTH + 100)}x`;
  const text = `{\n  "files": { "glob": ${JSON.stringify(glob)} },\n  "id": "id", "time": "t", "agent": "a", "type": "ty"\n}\n`;
  const parsed = parseMapping(text, '/w/hostile.otrace-map.json');
  const refused = parsed.problems.filter((p) => p.message.startsWith('"files.glob" is refused'));
  assert.deepEqual(
    refused.map((p) => [p.severity, p.file, p.range.start.line, p.range.start.character, p.message]),
    [['error', '/w/hostile.otrace-map.json', 1, text.split('\n')[1].indexOf('"***'), `"files.glob" is refused: a glob must be at most ${MAX_GLOB_LENGTH} characters long, not ${MAX_GLOB_LENGTH + 101}`]],
  );
  assert.equal(parsed.mapping, undefined);
  assert.equal(parsed.glob, undefined);
  assert.equal(chooseMapping([{ path: '/w/hostile.otrace-map.json', origin: 'workspace', ...parsed }], '{"id": 1}\n', `/w/${'x'.repeat(200)}`), undefined);
});
