/**
 * The hand-written token scanners and the normalized-content hash of src/analysis/text.ts against
 * the regular expressions and the normalization they replace (kept here as the reference): the same tokens, in the same order, on generated texts
 * (fast-check, seeded) mixing letters, digits, apostrophes, dashes, number punctuation, code fences,
 * non-ASCII letters whose lower case is ASCII (K, the Kelvin sign) and long texts past MAX_TEXT.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TokenInterner } from '../../../src/analysis/interner';
import { COMMON, contentWords, fnv1a, hashAndSalientIds, trimmedFnv1aTwice, stripLogNoise, forEachContentWord, forEachContentWordId, forEachSalientToken, isSpace, NormalizedFinder, salientTokenIds, sameWhitespaceAside, FUNCTION_WORDS, MAX_TEXT, normalizeContent, normalizedHash, salientTokens } from '../../../src/analysis/text';

/** The regular-expression version salientTokens replaced (as of 81156c3). */
function salientReference(text: string, common: (w: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of text.slice(0, MAX_TEXT).matchAll(/[A-Za-z][A-Za-z'\-]{2,}|\d[\d,.:/]*/g)) {
    const w = m[0].replace(/[.,:/]+$/, '');
    if (!w) continue;
    const c = w.charCodeAt(0);
    if (c >= 48 && c <= 57) out.add(w);
    else if (c >= 65 && c <= 90 && !common(w.toLowerCase())) out.add(w.toLowerCase());
  }
  return [...out];
}

/** The regular-expression version contentWords replaced, without its function-word filter. */
function contentReference(text: string, keep: (w: string) => boolean): string[] {
  const prose = text.includes('```') ? text.replace(/```[\s\S]*?(?:```|$)/g, ' ') : text;
  const out = new Set<string>();
  for (const m of prose.slice(0, MAX_TEXT).toLowerCase().matchAll(/[a-z][a-z0-9_'’\-]*/g)) {
    const w = m[0].replace(/['’\-]+$/, '');
    if (w.length >= 3 && keep(w)) out.add(w);
  }
  return [...out];
}

const piece = fc.oneof(
  fc.constantFrom('The', 'the', 'Paris', "O'Neil", 'x-ray', 'ab', 'a', 'A', 'Ab', "it's", 'don’t', 'well-', 'K', '\u212a', 'İstanbul', 'ÄBC', 'Result', 'thanks', 'between'),
  fc.constantFrom('1', '42', '3.14', '30,000', '12:30', '1/2', '7.', '9,', '2023-01-01', '2023-01-01T10:00:00Z', '2023-01-0', '1234-56-', '0x1F', '1e5'),
  fc.constantFrom('\t', '\r\n', '\v', '\f', '\u00a0', '\u2028', '\ufeff', 'ABC DEF', 'Straße'),
  fc.constantFrom(' ', '  ', '\n', '.', ',', ':', '/', "'", '-', '’', '_', '(', ')', '```', '```js\n', '"'),
  fc.string({ maxLength: 5 }),
);
const textArb = fc.oneof(
  fc.array(piece, { maxLength: 40 }).map((p) => p.join('')),
  fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(' ').repeat(Math.ceil((MAX_TEXT + 50) / Math.max(1, p.join(' ').length)))),
);

test('salientTokens finds exactly the tokens of its former regular expression, in the same order', () => {
  fc.assert(
    fc.property(textArb, (text) => {
      assert.deepStrictEqual([...salientTokens(text)], salientReference(text, (w) => COMMON.has(w)));
    }),
    { seed: 14, numRuns: 3000 },
  );
});

test('contentWords finds exactly the words of its former regular expression, in the same order', () => {
  fc.assert(
    fc.property(textArb, (text) => {
      assert.deepStrictEqual([...contentWords(text)], contentReference(text, (w) => !FUNCTION_WORDS.has(w)));
    }),
    { seed: 14, numRuns: 3000 },
  );
});

test('sameWhitespaceAside compares as the white-space collapse it replaced, on pairs of texts and on a text and its respaced copy', () => {
  const collapsed = (t: string) => t.replace(/\s+/g, ' ').trim();
  const respaced = fc.tuple(textArb, fc.array(fc.constantFrom(' ', '  ', '\n', '\t \r\n', '\u00a0', '\u3000', ''), { minLength: 1, maxLength: 8 })).map(([t, spaces]) => t.split(/(\s+)/).map((p, k) => (k % 2 === 1 ? spaces[k % spaces.length] || p : p)).join(''));
  let same = 0;
  fc.assert(
    fc.property(textArb, respaced, textArb, (a, b, c) => {
      for (const [x, y] of [[a, b], [a, c], [b, c], [`  ${a}\n`, a], [a, `${a} x`], [b, b.replace(/(\S)\s+(\S)/, '$1$2')]]) {
        const want = collapsed(x) === collapsed(y);
        assert.equal(sameWhitespaceAside(x, y), want, JSON.stringify([x.slice(0, 80), y.slice(0, 80)]));
        if (want && x !== y) same++;
      }
    }),
    { seed: 14, numRuns: 2000 },
  );
  assert.ok(same > 500, `${same} pairs the same but for white space`);
  // every UTF-16 code unit: white space exactly where \s says
  for (let c = 0; c < 0x10000; c++) assert.equal(isSpace(c), /\s/.test(String.fromCharCode(c)), `U+${c.toString(16)}`);
});

test('NormalizedFinder finds in a plain text what its normalized content includes, without making it', () => {
  const plain = (t: string) => !/[^\x00-\x7f]|\d{4}-\d{2}-\d{2}/.test(t.slice(0, MAX_TEXT));
  let found = 0;
  fc.assert(
    fc.property(textArb, textArb, fc.nat(), fc.integer({ min: 1, max: 60 }), (text, other, at, length) => {
      if (!plain(text)) return;
      const normalized = normalizeContent(text);
      for (const source of [normalized, normalizeContent(other), `${normalized} tail`]) {
        if (source.length === 0) continue;
        const from = at % source.length;
        const pattern = source.slice(from, from + length);
        const want = normalized.includes(pattern);
        assert.equal(new NormalizedFinder(pattern).in(text), want, JSON.stringify([text.slice(0, 80), pattern]));
        if (want) found++;
      }
    }),
    { seed: 14, numRuns: 4000 },
  );
  assert.ok(found > 2000, `${found} found`);
});

test('normalizedHash is the hash of the normalized content, on every text', () => {
  fc.assert(
    fc.property(textArb, (text) => {
      assert.equal(normalizedHash(text), fnv1a(normalizeContent(text)));
    }),
    { seed: 14, numRuns: 3000 },
  );
});

test('the interned scanners give the tokens and words of the string scanners, repeats and order kept, across texts', () => {
  // one interner over many texts, as the analyses use it: ids met before must map back to their token
  const salient = new TokenInterner(COMMON);
  const words = new TokenInterner(FUNCTION_WORDS);
  let met = 0;
  fc.assert(
    fc.property(fc.array(textArb, { minLength: 1, maxLength: 4 }), (texts) => {
      for (const text of texts) {
        const want: string[] = [];
        forEachSalientToken(text, (t) => want.push(t));
        const out = { ids: new Int32Array(1) }; // grown as needed
        const count = salientTokenIds(text, salient, out);
        const got = Array.from(out.ids.subarray(0, count), (id) => salient.key(id));
        assert.deepStrictEqual(got, want);
        const wantWords: string[] = [];
        forEachContentWord(text, (w) => wantWords.push(w));
        const gotWords: string[] = [];
        forEachContentWordId(text, words, (id) => gotWords.push(words.key(id)));
        assert.deepStrictEqual(gotWords, wantWords);
        met += want.length + wantWords.length;
      }
    }),
    { seed: 14, numRuns: 1500 },
  );
  assert.ok(met > 10_000 && salient.size > 600 && words.size > 600, `${met} tokens, ${salient.size} and ${words.size} distinct`);
});

test('hashAndSalientIds gives normalizedHash and the salient ids of the text as stripLogNoise leaves it, in one pass, or -1 for a text that is not plain or holds a noise word', () => {
  const noisy = fc.oneof(textArb, textArb, textArb.map((t) => `${t}\nTraceback (most recent call last):\n  File "x.py", line 1\nError: ${t}`), textArb.map((t) => `${t} /usr/lib/a.py:3: UserWarning`));
  const fused = new TokenInterner(COMMON);
  const apart = new TokenInterner(COMMON);
  let both = 0;
  let neither = 0;
  fc.assert(
    fc.property(noisy, (text) => {
      const out = { ids: new Int32Array(1), hash: 0 };
      const count = hashAndSalientIds(text, fused, out);
      const plain = new Uint8Array(1);
      const hash = normalizedHash(text, plain, 0);
      const noise = /\/|Error|Warning|Traceback|File "|COMPLETE/.test(text);
      if (count === -1) {
        // only a text the two scans read apart: not plain (plainHead 2), or one with a noise word
        assert.ok(plain[0] === 2 || noise, JSON.stringify(text.slice(0, 80)));
        neither++;
        return;
      }
      assert.equal(plain[0], 1);
      assert.equal(out.hash, hash >>> 0);
      const want = { ids: new Int32Array(1) };
      const wanted = salientTokenIds(stripLogNoise(text), apart, want);
      assert.deepStrictEqual(Array.from(out.ids.subarray(0, count), (id) => fused.key(id)), Array.from(want.ids.subarray(0, wanted), (id) => apart.key(id)));
      // the one pass hashes each token as the interner does: looked up by its text, it is the same id, none added
      const size = fused.size;
      for (const id of out.ids.subarray(0, count)) assert.equal(fused.id(fused.key(id), 0, fused.key(id).length, false), id);
      assert.equal(fused.size, size);
      both++;
    }),
    { seed: 14, numRuns: 3000 },
  );
  assert.ok(both > 300 && neither > 300, `${both} texts read in one pass, ${neither} apart`);
});

test('trimmedFnv1aTwice is fnv1a of the trimmed text from each of its two seeds', () => {
  const out = new Int32Array(2);
  fc.assert(
    fc.property(textArb, fc.constantFrom('', ' ', '\u00a0\t', '\n\u2028', '\ufeff '), (text, ends) => {
      const padded = `${ends}${text}${ends}`;
      trimmedFnv1aTwice(padded, 0x811c9dc5, 0x2545f491, out);
      assert.deepStrictEqual([out[0], out[1]], [fnv1a(padded.trim()) | 0, fnv1a(padded.trim(), 0x2545f491) | 0]);
    }),
    { seed: 14, numRuns: 2000 },
  );
});
