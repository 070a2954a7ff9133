/**
 * One shard of a corpus (`--shard i/n`, src/cli/shard.ts): the rule is stable (a file's shard
 * depends on its group key and n only, by the documented SHA-1 formula), the shards of a corpus
 * partition it, and a session's sub-agent files go with their session.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { filesOfShard, groupKey, parseShard, shardOfKey } from '../../../src/cli/shard';

test('parseShard: i/n counted from 0; anything else is a sentence saying what is wrong', () => {
  assert.deepEqual(parseShard('0/4'), { index: 0, count: 4 });
  assert.deepEqual(parseShard(' 3 / 4 '), { index: 3, count: 4 });
  for (const bad of ['4/4', '1/0', '-1/4', 'a/b', '1', '1/2/3', '0/2000000']) assert.equal(typeof parseShard(bad), 'string', bad);
  assert.match(parseShard('4/4') as string, /counted from 0/);
});

test('shardOfKey: the first 4 bytes of SHA-1 of the key, big-endian, mod n (what a Spark or Python job computes)', () => {
  // SHA-1("abc") = a9993e36...: 0xa9993e36 = 2845392438
  assert.equal(shardOfKey('abc', 1_000_000_000), 2845392438 % 1_000_000_000);
  assert.equal(shardOfKey('abc', 7), 2845392438 % 7);
  for (const key of ['Hand-Crafted/24', 'runs/é/ü', '']) {
    const expected = createHash('sha1').update(key, 'utf8').digest().readUInt32BE(0) % 5;
    assert.equal(shardOfKey(key, 5), expected, key);
  }
});

test('groupKey: the path without extension, cut at a folder that sits beside a trace file of its name; folder mode: the first folder', () => {
  const names = new Set(['proj/S.jsonl', 'proj/S/subagents/agent-a.jsonl', 'proj/T.jsonl', 'runs/1/trace.json']);
  const siblings = (dir: string, base: string) => names.has(dir ? `${dir}/${base}` : base);
  assert.equal(groupKey('proj/S.jsonl', 'file', siblings), 'proj/S');
  assert.equal(groupKey('proj/S/subagents/agent-a.jsonl', 'file', siblings), 'proj/S');
  assert.equal(groupKey('proj\\S\\subagents\\agent-a.jsonl', 'file', siblings), 'proj/S', 'either separator');
  assert.equal(groupKey('proj/T.jsonl', 'file', siblings), 'proj/T');
  assert.equal(groupKey('runs/1/trace.json', 'file', siblings), 'runs/1/trace');
  assert.equal(groupKey('runs/1/trace.json', 'folder', siblings), 'runs');
  assert.equal(groupKey('top.jsonl', 'folder', siblings), 'top');
});

test('filesOfShard: the shards of a corpus are disjoint and cover it, in the order given; sub-agent files land with their session', () => {
  const names = [...Array.from({ length: 200 }, (_, k) => `batch-${k % 7}/run-${k}.jsonl`), 'p/S.jsonl', 'p/S/subagents/agent-1.jsonl', 'p/S/subagents/agent-2.jsonl'];
  const files = names.map((name) => ({ name }));
  for (const count of [1, 2, 3, 8]) {
    for (const by of ['file', 'folder'] as const) {
      const shards = Array.from({ length: count }, (_, index) => filesOfShard(files, { index, count }, by).map((f) => f.name));
      assert.deepEqual(shards.flat().sort(), [...names].sort(), `${count} ${by}: every file in one shard`);
      for (const s of shards) assert.deepEqual(s, names.filter((n) => s.includes(n)), 'in the order given');
      const session = shards.find((s) => s.includes('p/S.jsonl'))!;
      assert.ok(session.includes('p/S/subagents/agent-1.jsonl') && session.includes('p/S/subagents/agent-2.jsonl'), `${count} ${by}: sub-agents with their session`);
    }
  }
  // spread: 200 files in 8 shards, none empty and none with more than twice its share
  const sizes = Array.from({ length: 8 }, (_, index) => filesOfShard(files, { index, count: 8 }, 'file').length);
  assert.ok(sizes.every((n) => n > 0 && n < 2 * (203 / 8)), sizes.join(' '));
  // stable: a file keeps its shard when others are added
  const more = [...files, ...Array.from({ length: 50 }, (_, k) => ({ name: `new/run-${k}.jsonl` }))];
  for (let index = 0; index < 3; index++) {
    const before = filesOfShard(files, { index, count: 3 }, 'file').map((f) => f.name);
    assert.deepEqual(filesOfShard(more, { index, count: 3 }, 'file').map((f) => f.name).filter((n) => !n.startsWith('new/')), before);
  }
});
