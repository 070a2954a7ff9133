/** The run summary's Labelled row: the labels a benchmark's file records (Who&When, MAST), each beside otrace's verdict; none for a file without labels. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { load } from '../../../src/cli/common';
import { graphOverview } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import '../../../src/trace/importers';
import { labelledWords } from '../../../webview/run-summary';
import { fixturePath } from '../helpers';

const labelledOf = (file: string) => graphOverview(makeSnapshot('k', 1, file, load(file)), path.basename(file)).run?.labelled;

test("a Who&When run shows its dataset's decisive mistake and correct answer beside otrace's blame, each event at its step (the graph's axis counts steps) and by its id", () => {
  assert.deepEqual(labelledOf(fixturePath('who-and-when', 'Hand-Crafted', '12.json')), [
    "decisive mistake (the dataset's label): Assistant at step 16 (event h16); otrace blames WebSurfer at step 12 (event h12)",
    "correct answer (the dataset's): 6",
  ]);
  assert.deepEqual(labelledOf(fixturePath('who-and-when', 'Algorithm-Generated', '102.json')), [
    "decisive mistake (the dataset's label): Filmography_Expert at step 1 (event h1); otrace blames Filmography_Expert at step 1 (event h1)",
    "correct answer (the dataset's): Nosferatu the Vampyre",
  ]);
});

test('a MAST trace shows the failure modes it is labelled with and how many otrace agrees on; a file without labels has no row', () => {
  assert.deepEqual(labelledOf(fixturePath('mast', 'AG2_early_human_annotated', 'AG2_trace2.json')), ['failure modes labelled (MAST): 1.5 unaware of termination no, 1.3 step repetition no, 3.2/3.3 verification yes; otrace agrees on 3 of 3']);
  assert.equal(labelledOf(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl')), undefined);
});

test('the row is plain text: a label of markup or controls is shown as it is written, on one line', () => {
  assert.equal(labelledWords(['decisive mistake (the dataset\'s label): <img src=x onerror=alert(1)> at h1', 'correct answer (the dataset\'s): a\nb']), "decisive mistake (the dataset's label): <img src=x onerror=alert(1)> at h1 · correct answer (the dataset's): a b");
});
