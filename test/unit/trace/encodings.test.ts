/**
 * Trace files in another encoding than UTF-8 (UTF-16 LE/BE and UTF-32, with or without a byte-order
 * mark; a UTF-8 byte-order mark) are decoded and read as usual: the same trace and the same problem
 * positions (line:column in the decoded text) as the UTF-8 file they were written from
 * (test/fixtures/encodings, made by its make_encodings.py). A text that was decoded as UTF-8 by
 * mistake is refused with a message naming its encoding.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { SessionFiles } from '../../../src/engine/session-input';
import { isTraceFile } from '../../../src/engine/open-target';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import { loadTraceFile } from '../../../src/trace/load-file';
import type { LoadedTrace } from '../../../src/trace/model';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { decodeText, misreadEncoding, sniffEncoding } from '../../../src/trace/text-encoding';
import { fixturePath } from '../helpers';

/** Each fixture and the UTF-8 file it was written from (make_encodings.py). */
const PAIRS: [string, string[]][] = [
  ['cut-off.otlp.utf16le.jsonl', ['otel', 'cut-off.otlp.jsonl']],
  ['openinference.otlp.utf16be-bom.json', ['otel', 'openinference.otlp.json']],
  ['trace.langfuse.utf16be.json', ['langfuse', 'trace.langfuse.json']],
  ['24-cc-ansi.utf16le-bom.jsonl', ['cases', '24-cc-ansi-escapes-in-tool-output.jsonl']],
  ['who-and-when-12.utf8-bom.json', ['who-and-when', 'Algorithm-Generated', '12.json']],
  ['openinference.otlp.utf32be-bom.json', ['otel', 'openinference.otlp.json']],
];

/** What must not change with the encoding: format, events, edges, problems (with their ranges), origins. */
function plain(l: LoadedTrace): unknown {
  const { bytes: _bytes, ...rest } = l as LoadedTrace & { bytes?: number };
  const meta = { ...(rest.trace.metadata ?? {}) };
  return JSON.parse(JSON.stringify({ ...rest, trace: { ...rest.trace, trace_id: undefined, metadata: meta } }));
}

describe('encodings', () => {
  test('the encoding is read from the byte-order mark, else from the zero bytes of the first characters (RFC 4627 §3)', () => {
    const enc = (bytes: number[]) => sniffEncoding(Uint8Array.from(bytes));
    assert.deepEqual(enc([0xef, 0xbb, 0xbf, 0x7b]), { encoding: 'utf-8', bomBytes: 3 });
    assert.deepEqual(enc([0xff, 0xfe, 0x7b, 0x00]), { encoding: 'utf-16le', bomBytes: 2 });
    assert.deepEqual(enc([0xfe, 0xff, 0x00, 0x7b]), { encoding: 'utf-16be', bomBytes: 2 });
    assert.deepEqual(enc([0x7b, 0x00, 0x0a, 0x00]), { encoding: 'utf-16le', bomBytes: 0 });
    assert.deepEqual(enc([0x00, 0x7b, 0x00, 0x0a]), { encoding: 'utf-16be', bomBytes: 0 });
    assert.deepEqual(enc([0xff, 0xfe, 0x00, 0x00, 0x7b, 0, 0, 0]), { encoding: 'utf-32le', bomBytes: 4 });
    assert.deepEqual(enc([0x00, 0x00, 0x00, 0x7b]), { encoding: 'utf-32be', bomBytes: 0 });
    assert.deepEqual(enc([0x7b, 0x22, 0x61, 0x22]), { encoding: 'utf-8', bomBytes: 0 });
    assert.deepEqual(enc([]), { encoding: 'utf-8', bomBytes: 0 });
    // non-ASCII and astral characters survive; the mark is not part of the text
    const text = '{"a": "é ✓ 😀"}\n';
    for (const [codec, bom] of [['utf16le', [0xff, 0xfe]], ['utf16le', []]] as const) {
      const bytes = Buffer.concat([Buffer.from(bom), Buffer.from(text, codec)]);
      assert.equal(decodeText(bytes).text, text);
    }
    const be = Buffer.from(text, 'utf16le').swap16();
    assert.deepEqual(decodeText(be), { text, encoding: 'utf-16be', bom: false });
  });

  for (const [name, source] of PAIRS) {
    test(`${name}: the same trace and positions as ${source.join('/')}`, () => {
      const want = loadTraceFile(fixturePath(...source), nodeFileAccess);
      const got = loadTraceFile(fixturePath('encodings', name), nodeFileAccess);
      assert.notEqual(got.format, 'unknown', got.problems[0]?.message);
      assert.deepEqual(plain(got), plain(want));
    });
  }

  test('sibling files, files followed as they grow, and the worker read UTF-16 too', () => {
    const file = fixturePath('encodings', 'cut-off.otlp.utf16le.jsonl');
    const utf8 = fs.readFileSync(fixturePath('otel', 'cut-off.otlp.jsonl'), 'utf8');
    assert.equal(nodeFileAccess.readText(file), utf8);
    assert.equal(new LiveFiles().readText(file), utf8);
    assert.equal(isTraceFile(file), true);
    const read = new SessionFiles(1).read({ key: 'k', version: -1, path: file, local: true }, [], false);
    assert.notEqual(read, 'unchanged');
    if (read !== 'unchanged') assert.deepEqual(plain(read.loaded), plain(loadTrace(utf8, file)));
  });

  test('a UTF-16 file that grows is read whole again (its appended bytes are not UTF-8 lines)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-encodings-'));
    const file = path.join(dir, 'run.otrace.jsonl');
    const line = (k: number) => `${JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: 'a', content: `é${k}` })}\n`;
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(line(0) + line(1), 'utf16le')]));
    const live = new LiveFiles();
    assert.equal(live.readText(file), line(0) + line(1));
    fs.appendFileSync(file, Buffer.from(line(2), 'utf16le'));
    assert.equal(live.refresh(file), 'reloaded');
    assert.equal(live.readText(file), line(0) + line(1) + line(2));
    assert.equal(live.refresh(file), 'unchanged');
    const files = new SessionFiles();
    const got = files.read({ key: 'k', version: -1, path: file, local: true }, [], false);
    assert.ok(got !== 'unchanged' && got.loaded.trace.events.length === 3);
  });

  test('a text decoded as UTF-8 by mistake is refused with a message naming its encoding, never "not a recognized trace format"', () => {
    const source = fs.readFileSync(fixturePath('otel', 'openinference.otlp.json'), 'utf8');
    for (const [bytes, label] of [
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(source, 'utf16le')]), 'UTF-16 LE'],
      [Buffer.from(source, 'utf16le').swap16(), 'UTF-16 BE'],
    ] as const) {
      const misread = bytes.toString('utf8');
      assert.ok(misreadEncoding(misread));
      const loaded = loadTrace(misread, 'x.json');
      assert.equal(loaded.problems.length, 1);
      assert.equal(loaded.problems[0].severity, 'error');
      assert.match(loaded.problems[0].message, new RegExp(`^this text is ${label} read as UTF-8`));
      assert.doesNotMatch(loaded.problems[0].message, /not a recognized trace format/);
    }
    assert.equal(misreadEncoding(source), undefined);
  });

  /** `file` as the engine reads a large otrace JSONL file: streamed from its bytes. */
  const streamedRead = (file: string): LoadedTrace => {
    const read = new SessionFiles(1).read({ key: 'k', version: -1, path: file, local: true }, [], false);
    assert.ok(read !== 'unchanged');
    return read.loaded;
  };
  /** The events of the demo trace whole (its lines unbroken). */
  const demoEvents = (demo: readonly string[]): number => loadTrace(demo.join('\n'), 'demo.otrace.jsonl').trace.events.length;

  test('bytes that are not UTF-8 are a warning where they are, and the records load, by the file and streamed readers', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-utf8-'));
    try {
      const bad = Buffer.from([0xc3, 0x28, 0xa0, 0xa1]);
      const lines = fs.readFileSync(fixturePath('claude-code', 'short.jsonl'), 'utf8').split('\n');
      const at = lines[2].indexOf('"content"');
      const file = path.join(dir, 'short.jsonl');
      fs.writeFileSync(file, Buffer.concat([Buffer.from(`${lines.slice(0, 2).join('\n')}\n${lines[2].slice(0, at + 11)}`), bad, Buffer.from(`${lines[2].slice(at + 11)}\n${lines.slice(3).join('\n')}`)]));
      const loaded = loadTraceFile(file, nodeFileAccess);
      const warnings = loaded.problems.filter((p) => /not UTF-8/.test(p.message));
      assert.deepEqual(warnings.map((p) => [p.severity, p.range.start.line]), [['warning', 2]]);
      assert.equal(loaded.trace.events.length, loadTrace(lines.join('\n'), 'short.jsonl').trace.events.length);
      // otrace JSONL streamed: the line's own warning, the record loaded
      const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n');
      const k = demo.findIndex((l) => l.includes('"content": "'));
      const cut = demo[k].indexOf('"content": "') + 12;
      const otrace = path.join(dir, 'demo.otrace.jsonl');
      fs.writeFileSync(otrace, Buffer.concat([Buffer.from(`${demo.slice(0, k).join('\n')}\n${demo[k].slice(0, cut)}`), bad, Buffer.from(`${demo[k].slice(cut)}\n${demo.slice(k + 1).join('\n')}`)]));
      const read = streamedRead(otrace);
      assert.deepEqual(read.problems.map((p) => [p.severity, p.range.start.line, p.range.start.character]), [['warning', k, cut]]);
      assert.equal(read.trace.events.length, demoEvents(demo));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a trace with a hole of NUL bytes (a crashed writer, a zero-filled block) loads its other lines; the lines with NULs are errors where they are, by every reader', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-nul-'));
    try {
      const lines = fs.readFileSync(fixturePath('claude-code', 'short.jsonl'), 'utf8').split('\n');
      const whole = loadTrace(lines.join('\n'), 'short.jsonl');
      // a NUL inside line 3 and a line of NULs after it
      const broken = [...lines.slice(0, 2), `${lines[2].slice(0, 40)}\u0000${lines[2].slice(40)}`, '\u0000'.repeat(512), ...lines.slice(3)];
      const file = path.join(dir, 'short.jsonl');
      fs.writeFileSync(file, broken.join('\n'));
      const expect = (loaded: LoadedTrace, by: string) => {
        assert.equal(loaded.format, 'claude-code', by);
        const errors = loaded.problems.filter((p) => p.severity === 'error');
        assert.deepEqual(errors.map((p) => p.range.start.line), [2, 3], `${by}: ${errors.map((p) => p.message).join(' | ')}`);
        assert.ok(!errors.some((p) => /binary/.test(p.message)), by);
        assert.ok(loaded.trace.events.length > 0 && loaded.trace.events.length <= whole.trace.events.length, `${by}: ${loaded.trace.events.length} events`);
      };
      expect(loadTrace(broken.join('\n'), file), 'the text reader');
      expect(loadTraceFile(file, nodeFileAccess), 'the file reader');
      // otrace JSONL, streamed from its bytes as a large file is
      const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n');
      const otrace = path.join(dir, 'demo.otrace.jsonl');
      fs.writeFileSync(otrace, [...demo.slice(0, 3), '\u0000'.repeat(64), ...demo.slice(3)].join('\n'));
      const read = streamedRead(otrace);
      assert.deepEqual(read.problems.filter((p) => p.severity === 'error').map((p) => p.range.start.line), [3]);
      assert.equal(read.trace.events.length, demoEvents(demo));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a binary file named as a trace is one problem at its first NUL byte, not one per line of bytes, by every reader', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-binary-'));
    try {
      // a PNG's signature and header, then bytes that hold line breaks (each a "line" a JSONL reader would report)
      const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i % 97 === 0 ? 0x0a : (i * 31) % 256)))]);
      const file = path.join(dir, 'image.otrace.jsonl');
      fs.writeFileSync(file, bytes);
      const expect = (loaded: LoadedTrace, by: string) => {
        assert.equal(loaded.problems.length, 1, `${by}: ${loaded.problems.map((p) => p.message).join(' | ')}`);
        assert.match(loaded.problems[0].message, /^not a text file: its content is binary/, by);
        assert.deepEqual(loaded.problems[0].range.start, { line: 2, character: 0 }, `${by}: at the first NUL (after the signature's two line breaks)`);
        assert.equal(loaded.trace.events.length, 0);
      };
      expect(loadTrace(bytes.toString('utf8'), file), 'the text reader');
      expect(loadTraceFile(file, nodeFileAccess), 'the file reader (which streams otrace JSONL)');
      for (const streamFromBytes of [1, undefined]) {
        const read = new SessionFiles(streamFromBytes).read({ key: 'k', version: -1, path: file, local: true }, [], false);
        assert.ok(read !== 'unchanged');
        expect(read.loaded, `the engine's read (streamed from ${streamFromBytes ?? 'the default size'})`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
