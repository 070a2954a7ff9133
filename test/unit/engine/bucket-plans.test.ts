/**
 * Bucket plans carried from one graph index to the next (src/engine/bucket-plans.ts): as a copy of
 * the last index's plans less the buckets an append touched would be, over any number of appends.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketPlans } from '../../../src/engine/bucket-plans';
import type { BucketPlan } from '../../../src/engine/graph-index';
import { rng } from '../../../bench/_generate';

const plan = (n: number): BucketPlan => ({ own: [n] });

describe('bucket plans carried over appends', () => {
  it('read as a copy less the touched buckets would be, through 40 appends (made one layer again as they deepen)', () => {
    const random = rng(31);
    const key = () => `0:0:${Math.floor(random() * 300)}`;
    let plans = BucketPlans.empty();
    let model = new Map<string, BucketPlan>();
    const indices: { plans: BucketPlans; model: Map<string, BucketPlan> }[] = [];
    for (let append = 0; append < 40; append++) {
      for (let k = 0; k < 30; k++) {
        const at = key();
        const p = plan(append * 1000 + k);
        plans.set(at, p);
        model.set(at, p);
      }
      indices.push({ plans, model });
      const hidden = new Set(Array.from({ length: 20 }, key));
      plans = plans.carried(hidden);
      model = new Map([...model].filter(([at]) => !hidden.has(at)));
      for (let k = 0; k < 300; k++) assert.equal(plans.get(`0:0:${k}`), model.get(`0:0:${k}`), `append ${append}, bucket ${k}`);
      assert.ok(plans.size >= model.size);
    }
    // the indices before kept theirs: a plan set after them is not theirs
    for (const [j, { plans: p, model: m }] of indices.entries()) for (let k = 0; k < 300; k++) assert.equal(p.get(`0:0:${k}`), m.get(`0:0:${k}`), `index ${j}, bucket ${k}`);
  });

  it('read through a plan the index before made after the append (a bucket not touched is the same bucket)', () => {
    const before = BucketPlans.empty();
    before.set('0:0:1', plan(1));
    const after = before.carried(new Set(['0:0:2']));
    before.set('0:0:3', plan(3));
    before.set('0:0:2', plan(2));
    assert.deepEqual([after.get('0:0:1'), after.get('0:0:3'), after.get('0:0:2')], [plan(1), plan(3), undefined], 'the touched bucket is planned again, not read through');
    after.set('0:0:2', plan(22));
    assert.deepEqual([after.get('0:0:2'), before.get('0:0:2')], [plan(22), plan(2)]);
    after.clear();
    assert.equal(after.get('0:0:1'), undefined);
    assert.equal(after.size, 0);
  });
});
