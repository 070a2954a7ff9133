/** GAIA's answer scorer (src/trace/importers/gaia-scorer.ts), case by case as the leaderboard's scorer.py decides them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gaiaCorrect } from '../../../../src/trace/importers/gaia-scorer';

test('numbers are compared as numbers: $, % and thousands commas dropped', () => {
  assert.equal(gaiaCorrect('3,080,000', '3080000'), true);
  assert.equal(gaiaCorrect('$14.20', '14.2'), true);
  assert.equal(gaiaCorrect('45%', '45'), true);
  assert.equal(gaiaCorrect('1080000000', '3080000'), false);
  assert.equal(gaiaCorrect('about 45', '45'), false, 'words around a number make it no number');
  assert.equal(gaiaCorrect('', '0'), false, 'an empty answer is no number (not 0)');
});

test('lists are compared element by element (numbers as numbers, strings without whitespace and case, punctuation kept)', () => {
  assert.equal(gaiaCorrect('132,133, 134;197, 245', '132, 133, 134, 197, 245'), true);
  assert.equal(gaiaCorrect('23, 45, 78, 102, 156', '132, 133, 134, 197, 245'), false);
  assert.equal(gaiaCorrect('yoshida,UEHARA', 'Yoshida, Uehara'), true);
  assert.equal(gaiaCorrect('Yoshida', 'Yoshida, Uehara'), false, 'as many elements');
  assert.equal(gaiaCorrect('Yoshida., Uehara', 'Yoshida, Uehara'), false, 'punctuation counts inside a list');
});

test('other strings: no whitespace, case or punctuation', () => {
  assert.equal(gaiaCorrect('Glass Onion: A Knives-Out Mystery', 'glass onion a knives out mystery'), true);
  assert.equal(gaiaCorrect('Skidmore', 'Holabird'), false);
  assert.equal(gaiaCorrect('Fidelity Emerging Markets Fund (FEMKX)', 'Fidelity® Emerging Markets Index Fund (FPADX)'), false);
});
