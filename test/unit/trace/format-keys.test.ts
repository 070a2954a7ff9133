/**
 * The formats' sign keys (src/trace/format-keys.ts): looked for once per file instead of by each
 * detector in turn, they change no detection. On every fixture and sample, cut after each of its
 * first lines and at points over its first 2 MiB, and with a long first field pushing the keys far
 * into the text, `detectFormat` names the format that asking every detector in order names, and a
 * detector that lists keys accepts no text that holds none of them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { SIGN_KEYS_WITHIN, signKeysIn } from '../../../src/trace/format-keys';
import { detectFormat, listFormats } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { FIXTURES } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Every JSON and JSONL fixture and sample (traces and not), read once. */
const files = [...walk(FIXTURES), ...walk(path.join(ROOT, 'samples'))].filter((f) => /\.jsonl?$/.test(f)).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));

/** The text, its prefixes after each of its first 20 lines and at 12 points over its first 2 MiB, and the text with a long first field. */
function variants(text: string): string[] {
  const out = [text];
  for (let i = 0, n = 0; n < 20; n++) {
    i = text.indexOf('\n', i + 1);
    if (i === -1) break;
    out.push(text.slice(0, i + 1));
  }
  const span = Math.min(text.length, 2 * SIGN_KEYS_WITHIN);
  for (let k = 1; k <= 12; k++) out.push(text.slice(0, Math.round((span * k) / 12)));
  // a first field of 70,000 characters: the keys after it are past a 64 KB head
  if (/^\s*\{/.test(text)) out.push(text.replace(/^\s*\{/, `{"note": "${'x'.repeat(70_000)}",`));
  return out;
}

describe('format sign keys', () => {
  test('detectFormat names the format that asking every detector in order names', () => {
    let asked = 0;
    const wrong: string[] = [];
    for (const { file, text } of files) {
      for (const v of variants(text)) {
        asked++;
        const everyDetector = listFormats().find((f) => f.detect(v, file))?.id;
        const got = detectFormat(v, file)?.id;
        if (got !== everyDetector) wrong.push(`${path.relative(ROOT, file)} (${v.length} characters): ${got} instead of ${everyDetector}`);
      }
    }
    assert.ok(files.length > 60 && asked > 1000, `${files.length} files, ${asked} texts`);
    assert.deepEqual(wrong, []);
  });

  test('a detector that lists keys accepts no text without one of them', () => {
    const withKeys = listFormats().filter((f) => f.keys);
    assert.ok(withKeys.length >= 8, withKeys.map((f) => f.id).join(', '));
    const wrong: string[] = [];
    const accepted = new Set<string>();
    for (const { file, text } of files) {
      for (const v of variants(text)) {
        for (const f of withKeys) {
          if (!f.detect(v, file)) continue;
          accepted.add(f.id);
          if (signKeysIn(v, f.keys!).size === 0) wrong.push(`${f.id} accepts ${path.relative(ROOT, file)} (${v.length} characters) without ${f.keys!.join(' or ')}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
    // each of them accepted a fixture: the rule was put to the test for every one
    assert.deepEqual(withKeys.map((f) => f.id).filter((id) => !accepted.has(id)), []);
  });

  test('finds a key only as a JSON key, within the head', () => {
    const keys = ['history', 'parent_id'];
    assert.deepEqual([...signKeysIn('{"history" :\n [1]}', keys)], ['history']);
    // inside a string value its quotes are escaped; a longer key or a value is not the key
    assert.deepEqual([...signKeysIn('{"content": "see \\"history\\": [1]", "parent_id_of": 1, "x": "parent_id"}', keys)], []);
    assert.deepEqual([...signKeysIn(`{"note": "${'x'.repeat(SIGN_KEYS_WITHIN)}", "history": []}`, keys)], []);
    assert.deepEqual([...signKeysIn('{"parent_id": 1, "history": [], "history": []}', keys)].sort(), ['history', 'parent_id']);
  });
});
