/**
 * The credit column (src/analysis/credit-column.ts): a followed trace's analyses share it chunk by
 * chunk, and no column handed out ever changes; an append's analysis makes no list of every value
 * unless `by_index` is read.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreditColumn, creditColumn } from '../../../src/analysis/credit-column';
import { rng } from '../../../bench/_generate';
import { analyzeTrace } from '../../../src/analysis';
import { ev, Followed, header, lines, plain } from './followed';

describe('credit column', () => {
  it('equals a list written the same way over generations, and no column handed out changes', () => {
    const random = rng(30);
    const model: number[][] = [];
    const columns: CreditColumn[] = [];
    let values = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? 0.125 * i : 0));
    let column = CreditColumn.of(values.slice());
    for (let generation = 0; generation < 40; generation++) {
      model.push(values);
      columns.push(column);
      const n = values.length + Math.floor(random() * 3000);
      const next = column.grown(n);
      values = [...values, ...new Array<number>(n - values.length).fill(0)];
      // written where an append writes: its new events, the last chunk's and the first's, and now and then anywhere
      const writes = Math.floor(random() * 300);
      for (let k = 0; k < writes; k++) {
        const pick = random();
        const i = pick < 0.4 ? n - 1 - Math.floor(random() * Math.min(n, 6000)) : pick < 0.8 ? Math.floor(random() * Math.min(n, 4096)) : Math.floor(random() * n);
        const v = random() < 0.1 ? -0 : Math.round((random() - 0.5) * 1e6) / 1e6;
        next.set(i, v);
        values[i] = v;
      }
      column = next.seal();
    }
    model.push(values);
    columns.push(column);
    columns.forEach((c, g) => {
      assert.equal(c.length, model[g].length, `generation ${g}: its length`);
      assert.deepEqual(c.toArray(), model[g], `generation ${g}: its values as written then, after every later generation`);
      assert.equal(c.at(-1), undefined);
      assert.equal(c.at(c.length), undefined, 'nothing past its end');
    });
    assert.ok(Object.is(columns[0].at(0), model[0][0]));
    // sharing says the values are the same (never wrongly); a range no generation wrote is shared
    let shared = 0;
    for (let k = 0; k < 2000; k++) {
      const g = Math.floor(random() * columns.length);
      const h = Math.floor(random() * columns.length);
      const length = Math.min(columns[g].length, columns[h].length);
      const from = Math.floor(random() * length);
      const to = Math.min(length, from + 1 + Math.floor(random() * 5000));
      if (!columns[g].shares(columns[h], from, to)) continue;
      shared++;
      for (let i = from; i < to; i++) assert.ok(Object.is(columns[g].at(i), columns[h].at(i)), `generations ${g} and ${h} share [${from}, ${to}) yet differ at ${i}`);
    }
    assert.ok(shared > 20, `${shared} of 2,000 ranges shared (the check above ran)`);
    // the events listed as differing are those whose values differ as `at` reads them (-0 is 0), in order; a list cut at `most`
    const lists = { whole: 0, cut: 0 };
    const flat = columns.map((c) => CreditColumn.of(c.toArray()));
    for (let k = 0; k < 600; k++) {
      const g = Math.floor(random() * columns.length);
      const h = Math.floor(random() * columns.length);
      const from = Math.floor(random() * Math.max(columns[g].length, columns[h].length));
      const to = from + Math.floor(random() * 9000);
      const expected: number[] = [];
      for (let i = from; i < to; i++) if (columns[g].at(i) !== columns[h].at(i)) expected.push(i);
      const most = random() < 0.5 ? Infinity : Math.floor(random() * 40);
      for (const [x, y] of [[columns[g], columns[h]], [flat[g], columns[h]], [columns[g], flat[h]]]) {
        const out: number[] = [];
        const whole = x.listDiffering(y, from, to, out, most);
        assert.equal(whole, expected.length <= most, `generations ${g} and ${h} over [${from}, ${to}): whether all are listed`);
        assert.deepEqual(out, whole ? expected : expected.slice(0, most + 1), `generations ${g} and ${h} over [${from}, ${to})`);
      }
      lists[expected.length > most ? 'cut' : 'whole']++;
    }
    assert.ok(lists.whole > 100 && lists.cut > 100, `lists whole and cut: ${lists.whole}, ${lists.cut}`);
  });

  it('writes a run of values (-0 is not 0), copying only the chunks where one changes', () => {
    const random = rng(31);
    let values: number[] = Array.from({ length: 20_000 }, (_, i) => (i % 5 === 0 ? 0.25 : 0));
    let column = CreditColumn.of(values.slice()).grown(values.length).seal();
    for (let generation = 0; generation < 30; generation++) {
      const n = values.length + Math.floor(random() * 2000);
      const next = values.concat(new Array<number>(n - values.length).fill(0));
      const byRun = column.grown(n);
      const from = Math.floor(random() * n);
      const count = Math.floor(random() * (n - from));
      const run = new Float64Array(count);
      for (let k = 0; k < count; k++) {
        const pick = random();
        run[k] = pick < 0.9 ? next[from + k] : pick < 0.95 ? -0 : Math.round(random() * 1e6) / 1e6;
        next[from + k] = run[k];
      }
      byRun.putAll(from, run, count);
      byRun.seal();
      const got = byRun.toArray();
      next.forEach((v, i) => assert.ok(Object.is(got[i], v), `generation ${generation}: event ${i}`));
      // a chunk of the old events whose values all stay (Object.is) is still the old column's
      for (let c = 0; (c + 1) * 4096 <= values.length; c++) {
        const range: [number, number] = [c * 4096, (c + 1) * 4096];
        const same = values.slice(...range).every((v, k) => Object.is(v, next[range[0] + k]));
        assert.equal(byRun.shares(column, ...range), same, `generation ${generation}: chunk ${c} ${same ? 'kept' : 'written'}`);
      }
      values = got;
      column = byRun;
    }
    assert.throws(() => column.putAll(0, new Float64Array(1), 1), /never changes/);
    assert.throws(() => column.grown(column.length).putAll(column.length, new Float64Array(1), 1), RangeError);
  });

  it('shares the chunks no write reached with the column it was grown from, and says so', () => {
    const first = CreditColumn.of(new Array<number>(10_000).fill(0.5)).grown(10_000).seal();
    const next = first.grown(12_000);
    next.putAll(5, Float64Array.of(0.75), 1);
    next.putAll(9_000, Float64Array.of(0.5), 1); // the value there: no copy
    next.seal();
    assert.equal(next.shares(first, 4096, 10_000), true, 'the chunks no write reached');
    assert.equal(next.shares(first, 0, 4096), false, 'the chunk written');
    assert.equal(next.shares(first, 4000, 5000), false, 'a range reaching into it');
    assert.equal(next.shares(first, 9_000, 11_000), false, 'past the shorter column');
    assert.equal(next.shares(next, 0, 12_000), true);
    assert.equal(CreditColumn.of([1, 2]).shares(CreditColumn.of([1, 2]), 0, 2), false, 'columns made from lists say nothing');
  });

  it('is written only while it is being made', () => {
    const column = CreditColumn.of([0.5, 0.25]);
    assert.throws(() => column.set(0, 1), /never changes/);
    const next = column.grown(3);
    next.set(2, 0.75);
    assert.throws(() => next.set(3, 1), RangeError);
    next.seal();
    assert.throws(() => next.set(0, 1), /never changes/);
    assert.throws(() => column.grown(1), RangeError);
    assert.deepEqual([column.toArray(), next.toArray()], [[0.5, 0.25], [0.5, 0.25, 0.75]]);
  });

  it('is the list of a credit result made otherwise (several traces, a copy)', () => {
    const credit = { by_index: [0.1, -0.2] };
    assert.equal(creditColumn(credit), creditColumn(credit), 'one column per result');
    assert.deepEqual(creditColumn(credit).toArray(), [0.1, -0.2]);
  });

  it("a followed append's credit makes no list of every value until read, and the analysis before keeps its own", () => {
    // a writer and a reviewer passing a draft back and forth; the run ends in a final answer each time more comes
    const turn = (k: number) => [
      ev(3 * k + 1, 3 * k + 1, 'message', 'writer', { to: 'reviewer', content: `draft ${k}: the quarterly totals per region` }),
      ev(3 * k + 2, 3 * k + 2, 'message', 'reviewer', { to: 'writer', content: `notes on draft ${k}` }),
      ev(3 * k + 3, 3 * k + 3, 'final_answer', 'writer', { content: `answer ${k}` }),
    ];
    const f = new Followed(lines([header, ev(0, 0, 'message', 'user', { to: 'writer', content: 'write the quarterly report' }), ...turn(0)]));
    let last = f.check('the first turn').analysis;
    f.append(lines(turn(1)));
    last = f.check('the second turn').analysis;
    for (let k = 2; k <= 5; k++) {
      const before = creditColumn(last.credit).toArray();
      f.append(lines(turn(k)));
      const { loaded, fresh } = f.load();
      const analysis = f.follow.update(loaded);
      assert.equal(f.follow.last.how, 'appended', f.follow.last.reason);
      assert.ok(Object.getOwnPropertyDescriptor(analysis.credit, 'by_index')?.get, `turn ${k}: by_index is made when read, not with the analysis`);
      assert.deepEqual(creditColumn(last.credit).toArray(), before, `turn ${k}: the analysis before keeps its values`);
      assert.deepEqual(creditColumn(analysis.credit).toArray(), analyzeTrace(fresh).credit.by_index, `turn ${k}: the column holds a whole analysis's values`);
      assert.deepEqual(plain(analysis), plain(analyzeTrace(fresh)), `turn ${k}: the analysis, its list read, equals a whole analysis`);
      last = analysis;
    }
  });
});
