/**
 * The host's sniff (src/trace/trace-sniff.ts) never misses a trace a built-in detector accepts: on
 * every fixture and sample, on prefixes of each (a file cut off, a head of its first lines), and with
 * a long first field pushing the keys far into the text, each accepting detector's format shows its
 * sign. Ordinary JSON (package.json, tsconfig.json, VS Code settings, data, logs) shows none, so
 * opening it starts no engine.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { listFormats } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { SNIFF_CHARS, mayBeTrace, traceSigns } from '../../../src/trace/trace-sniff';
import { FIXTURES } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Trace files of every format: the fixtures and samples that a detector accepts (read once). */
const traces = [...walk(FIXTURES), ...walk(path.join(ROOT, 'samples'))]
  .filter((f) => /\.jsonl?$/.test(f))
  .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))
  .filter(({ file, text }) => listFormats().some((x) => x.detect(text, file)));

/** The formats whose detector accepts `text` but whose sign the sniff does not see. */
function missed(text: string, file: string): string[] {
  const signs = traceSigns(text, file);
  return listFormats()
    .filter((x) => x.detect(text, file) && !signs.includes(x.id))
    .map((x) => x.id);
}

/** Where to cut a text: after each of its first 40 lines, and at 24 points spread over its first 2 MiB. */
function cuts(text: string): number[] {
  const at = new Set<number>();
  for (let i = 0, n = 0; n < 40 && i !== -1; n++) {
    i = text.indexOf('\n', i + 1);
    if (i !== -1) at.add(i + 1);
  }
  const span = Math.min(text.length, 2 * SNIFF_CHARS);
  for (let k = 1; k <= 24; k++) at.add(Math.round((span * k) / 24));
  return [...at].sort((a, b) => a - b);
}

describe('trace sniff', () => {
  test('sees the sign of every format on every fixture and sample', () => {
    assert.ok(traces.length > 40, `${traces.length} traces`);
    const wrong = traces.flatMap(({ file, text }) => missed(text, file).map((id) => `${path.relative(ROOT, file)}: ${id}`));
    assert.deepEqual(wrong, []);
    // every registered format was among them, each seen by its own sign
    const seen = new Set(traces.flatMap(({ file, text }) => listFormats().filter((x) => x.detect(text, file)).map((x) => x.id)));
    assert.deepEqual(listFormats().map((x) => x.id).filter((id) => !seen.has(id)), []);
  });

  test('sees it on every prefix a detector accepts (a cut-off file, the first lines)', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { file, text } of traces) {
      for (const at of cuts(text)) {
        const head = text.slice(0, at);
        checked++;
        for (const id of missed(head, file)) wrong.push(`${path.relative(ROOT, file)} cut at ${at}: ${id}`);
      }
    }
    assert.ok(checked > 1000, `${checked} prefixes`);
    assert.deepEqual(wrong, []);
  });

  test('sees it when a long first field pushes the keys far into the text (64 KiB to 1 MiB)', () => {
    const wrong: string[] = [];
    let accepted = 0;
    for (const { file, text } of traces) {
      const start = text.search(/\S/);
      if (text[start] !== '{') continue;
      for (const size of [70_000, 900_000]) {
        // a long first field, as a long task or question before the trace's own keys
        const padded = `${text.slice(0, start + 1)}"note": "${'x'.repeat(size)}", ${text.slice(start + 1)}`;
        if (listFormats().some((x) => x.detect(padded, file))) accepted++;
        for (const id of missed(padded, file)) wrong.push(`${path.relative(ROOT, file)} after ${size} characters: ${id}`);
      }
    }
    assert.ok(accepted > 20, `${accepted} padded traces still detected`);
    assert.deepEqual(wrong, []);
  });

  test('says no for ordinary JSON: package.json, tsconfig.json, VS Code settings, data, logs', () => {
    const plain = [
      ...walk(path.join(FIXTURES, 'not-traces')).filter((f) => !f.endsWith('.md')),
      path.join(ROOT, 'package.json'),
      path.join(ROOT, 'package-lock.json'),
      path.join(ROOT, 'tsconfig.json'),
      path.join(ROOT, 'tsconfig.base.json'),
      ...['trace', 'analysis', 'shared', 'engine', 'host', 'cli'].map((d) => path.join(ROOT, 'src', d, 'tsconfig.json')),
    ];
    assert.ok(plain.length >= 14, `${plain.length} files`);
    const taken = plain.map((f) => ({ f, signs: traceSigns(fs.readFileSync(f, 'utf8'), f) })).filter((x) => x.signs.length);
    assert.deepEqual(taken.map(({ f, signs }) => `${path.relative(ROOT, f)}: ${signs.join(', ')}`), []);
    assert.equal(mayBeTrace('', 'package.json'), false, 'an empty file');
  });

  test('says no for chat logs and app logs whose records hold a "message" object or a "producer" (the Kimi and Copilot CLI signs are narrower)', () => {
    assert.equal(mayBeTrace('{"level": "info", "message": {"type": "request", "path": "/"}}\n', 'app.log.jsonl'), false);
    assert.equal(mayBeTrace('{"message": {"role": "user", "content": "hi"}}\n', 'chat.jsonl'), false);
    assert.equal(mayBeTrace('{"title": "x", "producer": "Acrobat Distiller"}', 'pdf-meta.json'), false);
    assert.deepEqual(traceSigns('{"timestamp": 1.5, "message": {"type": "TurnBegin", "payload": {}}}\n', 'wire.jsonl'), ['kimi']);
  });

  test('takes *.otrace.json and *.otrace.jsonl by name, whatever their start', () => {
    assert.deepEqual(traceSigns('', '/w/run.otrace.jsonl'), ['otrace-jsonl']);
    assert.deepEqual(traceSigns('not json', 'C:\\w\\run.otrace.json'), ['otrace-json']);
    assert.equal(mayBeTrace('{"name": "x"}', '/w/run.otrace.json.bak'), false);
  });

  test('reads no further than its window', () => {
    const late = `{"pad": "${'x'.repeat(SNIFF_CHARS)}", "resourceSpans": []}`;
    assert.equal(mayBeTrace(late, 'late.json'), false, 'a key after the first MiB is not seen');
    assert.equal(mayBeTrace(late.slice(0, 40) + late.slice(SNIFF_CHARS - 20), 'early.json'), true);
  });
});
