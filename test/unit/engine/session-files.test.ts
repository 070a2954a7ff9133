/**
 * The worker's SessionFiles hands the lines appended to a followed trace to its growing import:
 * appends go into the import's state (not a whole read), a document's text or a truncated file
 * reads whole, and each read equals a fresh read of the file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAY_BE_WRITTEN_MS, SessionFiles } from '../../../src/engine/session-input';
import type { LoadRequest } from '../../../src/engine/worker-protocol';
import { loadTrace } from '../../../src/trace/formats';
import { loadTraceFile } from '../../../src/trace/load-file';
import '../../../src/trace/importers';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import { nodeFileAccess } from '../../../src/trace/node-files';

const NO_MAPPINGS: MappingSource[] = [];
const plain = (t: unknown) => JSON.parse(JSON.stringify(t));

/** Line `k` of a chain of messages between two agents (each caused by the one before), with its line break. */
const line = (k: number) => `${JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'a' : 'b', ...(k > 0 ? { causes: [`e${k - 1}`] } : {}) })}\n`;

/** A new otrace JSONL file in a temporary folder holding lines 0 .. count - 1 of the chain ({@link line} makes the next ones); its path. */
function chainFile(count: number): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-session-files-')), 'run.otrace.jsonl');
  let text = '';
  for (let k = 0; k < count; k++) text += line(k);
  fs.writeFileSync(file, text);
  return file;
}

describe('SessionFiles and the growing import', () => {
  it('takes appended lines into the import kept, and reads a document or a truncated file whole', () => {
    const file = chainFile(5);
    const files = new SessionFiles();
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true };
    const read = (r: LoadRequest, what: string) => {
      const got = files.read(r, NO_MAPPINGS, true);
      assert.notEqual(got, 'unchanged', what);
      if (got === 'unchanged') return;
      files.kept();
      assert.deepEqual(plain(got.loaded), plain(loadTrace(r.text ?? fs.readFileSync(file, 'utf8'), file)), `${what}: the same trace as a fresh read`);
      return got;
    };
    assert.equal(read(request, 'first read')?.grew, false, 'a file read for the first time is not taken as being written');
    assert.deepEqual(files.growing.counts, { appended: 0, whole: 1 });

    for (let k = 5; k < 8; k++) fs.appendFileSync(file, line(k));
    const grown = read({ ...request, changed: [file] }, 'after an append');
    assert.equal(grown?.grew, true);
    assert.equal(grown?.loaded.trace.events.length, 8);
    assert.deepEqual(files.growing.counts, { appended: 1, whole: 1 }, 'the append went into the import kept');
    assert.equal(files.read({ ...request, changed: [file] }, NO_MAPPINGS, true), 'unchanged');

    read({ ...request, version: 3, text: fs.readFileSync(file, 'utf8') + line(8) }, 'a document with an edit');
    read({ ...request, changed: [file] }, 'the file again after the document');
    assert.equal(files.growing.counts.whole, 2, 'after a document, the file reads whole');

    fs.writeFileSync(file, line(0) + line(1));
    const truncated = read({ ...request, changed: [file] }, 'truncated');
    assert.equal(files.growing.counts.whole, 3, 'a truncated file reads whole');
    // a file written anew is being written, as one that grew: its end is not judged yet (the host says "in progress" of both)
    assert.equal(truncated?.grew, true);
    fs.appendFileSync(file, line(2));
    read({ ...request, changed: [file] }, 'appended after the truncation');
    assert.equal(files.growing.counts.appended, 2);
  });
});

describe('SessionFiles and a streamed file followed through superseded loads', () => {
  it('a load that reads an append but is not kept leaves the followed reader with it: the next load reads no byte again', () => {
    const file = chainFile(200);
    // streamed from 1 KB: the file is read from its bytes and followed as it grows
    const files = new SessionFiles(1024);
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true };
    const fresh = () => { const t = loadTraceFile(file); return plain({ trace: t.trace, problems: t.problems }); };
    const read = (what: string) => {
      const got = files.read({ ...request, changed: [file] }, NO_MAPPINGS, true);
      assert.notEqual(got, 'unchanged', what);
      if (got === 'unchanged') throw new Error(what);
      assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), fresh(), `${what}: the same trace as a fresh read`);
      return got;
    };
    read('first read');
    files.kept();
    let k = 200;
    const append = (n: number) => {
      let more = '';
      for (const end = k + n; k < end; k++) more += line(k);
      fs.appendFileSync(file, more);
      return Buffer.byteLength(more);
    };
    // the first append starts following the file: read whole once more into the reader kept
    append(5);
    read('the first append');
    files.kept();
    for (let round = 0; round < 3; round++) {
      const added = append(5);
      const before = files.bytesRead;
      // a load reads the append, then a newer load (the same change seen twice) supersedes it before its snapshot is kept
      const superseded = read(`append ${round}: the superseded load`);
      assert.equal(superseded.grew, true);
      const newer = read(`append ${round}: the newer load`);
      assert.equal(newer.grew, true, `append ${round}: the newer load says the file grew (the superseded one's read was not kept)`);
      assert.equal(newer.shared, true, `append ${round}: the newer load's events come from the reader that follows the file`);
      files.kept();
      assert.ok(files.bytesRead - before <= added, `append ${round}: ${files.bytesRead - before} bytes read for ${added} appended (the file is ${fs.statSync(file).size} bytes)`);
    }
  });
});

describe('a streamed file whose last line has no break yet', () => {
  it('reads whole again when that line goes on (more bytes, still no break): the record taken of it is gone', () => {
    const file = chainFile(40); // > 1 KB: streamed from its bytes
    const files = new SessionFiles(1024);
    const read = () => {
      const got = files.read({ key: 'k', version: -1, path: file, local: true, changed: [file] }, NO_MAPPINGS, true);
      if (got === 'unchanged') throw new Error('unchanged');
      files.kept();
      const whole = loadTraceFile(file);
      assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), plain({ trace: whole.trace, problems: whole.problems }), 'the same trace and problems as a whole read');
      return got.loaded;
    };
    read();
    fs.appendFileSync(file, line(40).trimEnd()); // no break: the last line is taken as a record while it is held
    assert.equal(read().trace.events.length, 41);
    fs.appendFileSync(file, line(41).trimEnd()); // the same line goes on: two objects on one line, cut off
    const after = read();
    assert.equal(after.trace.events.length, 40, 'the line that went on is no record');
    assert.ok(after.problems.some((p) => /cut off/.test(p.message)), 'its problem is said');
    fs.appendFileSync(file, `\n${line(42)}`);
    read();
  });
});

describe('the lists the reader of a followed file hands out', () => {
  it('never change as it reads on, and once a load is kept (its lists copied once the views had the time to ask for it, not in the load) the next append is read without copying them (copy on write)', async () => {
    const file = chainFile(300); // > 1 KB: streamed from its bytes
    const files = new SessionFiles(1024);
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true };
    let k = 300;
    const append = (n: number) => {
      let more = '';
      for (const end = k + n; k < end; k++) more += line(k) + `${JSON.stringify({ edge: { src: `e${k - 1}`, dst: `e${k}`, type: 'causal' } })}\n`;
      fs.appendFileSync(file, more);
    };
    /** The lists (events, edges) each read handed out, with the items they held then. */
    const handedOut: { list: readonly object[]; items: object[] }[] = [];
    /** Reads the file, and the lengths of the lists of 300 items or more that Array.prototype.slice copied meanwhile. */
    const read = (what: string) => {
      // a list of the trace copied: by a slice, or a concat (a copy with room to grow: src/trace/read.ts)
      const sliced: number[] = [];
      const { slice, concat } = Array.prototype;
      Array.prototype.slice = function (this: unknown[], ...a: [number?, number?]) {
        if (this.length >= 300) sliced.push(this.length);
        return slice.apply(this, a);
      };
      Array.prototype.concat = function (this: unknown[], ...a: unknown[]) {
        if (this.length >= 300) sliced.push(this.length);
        return concat.apply(this, a);
      } as typeof concat;
      let got;
      try {
        got = files.read({ ...request, changed: [file] }, NO_MAPPINGS, true);
      } finally {
        Array.prototype.slice = slice;
        Array.prototype.concat = concat;
      }
      if (got === 'unchanged') throw new Error(`${what}: unchanged`);
      const whole = loadTraceFile(file);
      assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), plain({ trace: whole.trace, problems: whole.problems }), `${what}: the same trace as a whole read`);
      for (const list of [got.loaded.trace.events, got.loaded.trace.edges ?? []]) handedOut.push({ list, items: [...list] });
      for (const [i, h] of handedOut.entries()) {
        assert.equal(h.list.length, h.items.length, `${what}: list ${i} handed out before keeps its length`);
        assert.ok(h.items.every((item, j) => h.list[j] === item), `${what}: list ${i} handed out before keeps its items`);
      }
      return sliced;
    };
    /** The load kept, and the readers' lists taken once the views had the time to ask for it (src/engine/session-input.ts `kept`). */
    const kept = () => files.kept();
    read('first read');
    await kept();
    append(5);
    read('the first append (read whole into the reader that follows the file)');
    await kept();
    for (let round = 0; round < 3; round++) {
      append(5);
      assert.deepEqual(read(`append ${round}`), [], `append ${round}: after a kept load, no list of the trace is copied while the append is read`);
      await kept();
    }
    // loads not kept (superseded): the reader copies its lists as it takes the next lines, and the lists handed out stay as they were
    append(5);
    read('an append whose load is not kept');
    append(5);
    const copied = read('the next append');
    assert.ok(copied.length > 0, 'without a kept load in between, the reader copies the lists it shares before adding to them');
    // kept, and read again at the turn after it, before the views had the time to ask for the kept snapshot: its
    // lists are not copied then (the views' requests would wait for it), so the read copies them itself
    void files.kept();
    await new Promise((resolve) => setImmediate(resolve));
    append(5);
    assert.ok(read('an append read at the turn after the load kept').length > 0, 'the lists are not copied at the turn after a kept load');
    await kept();
    append(5);
    assert.deepEqual(read('an append after a kept load again'), []);
    // kept, and the graph answered with it (its overview and first window): the lists are taken at the turn after the answer
    void files.kept();
    files.viewsAnswered();
    await new Promise((resolve) => setImmediate(resolve));
    append(5);
    assert.deepEqual(read('an append at the turn after the graph was answered'), [], 'the lists were taken once the graph was answered');
  });
});

describe('a streamed file that may still be written when first read', () => {
  const firstAppend = (ageMs: number) => {
    const file = chainFile(300); // > 1 KB: streamed from its bytes
    const at = new Date(Date.now() - ageMs);
    fs.utimesSync(file, at, at);
    const files = new SessionFiles(1024);
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true, changed: [file] };
    const first = files.read(request, NO_MAPPINGS, false);
    if (first === 'unchanged') throw new Error('unchanged');
    files.kept();
    const more = line(300) + line(301);
    fs.appendFileSync(file, more);
    const before = files.bytesRead;
    const got = files.read(request, NO_MAPPINGS, true);
    if (got === 'unchanged') throw new Error('unchanged');
    const whole = loadTraceFile(file);
    assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), plain({ trace: whole.trace, problems: whole.problems }), 'the same trace as a whole read');
    return { firstShared: first.shared, read: files.bytesRead - before, appended: Buffer.byteLength(more), size: fs.statSync(file).size };
  };

  it('is followed from its first read (modified a minute ago): its first append reads only the appended bytes', () => {
    const got = firstAppend(60_000);
    assert.equal(got.firstShared, true, 'the first read is the reader that follows the file');
    assert.ok(got.read <= got.appended, `${got.read} bytes read for ${got.appended} appended`);
  });

  it(`is read whole with nothing kept when modified long ago (over ${MAY_BE_WRITTEN_MS / 60_000} minutes): its first append reads it whole once more`, () => {
    const got = firstAppend(MAY_BE_WRITTEN_MS + 60_000);
    assert.equal(got.firstShared, false, 'its events are the snapshot own (long content can be let go)');
    assert.equal(got.read, got.size, 'the first append reads the file whole into the reader that follows it');
  });
});

describe('a followed file rewritten in place and grown', () => {
  for (const [where, rewrite] of [
    ['its start (a run started again)', (text: string) => text.replace('"agent":"b"', '"agent":"c"')],
    ['its last line', (text: string) => { const last = text.lastIndexOf('\n', text.length - 2) + 1; return text.slice(0, last) + text.slice(last).replace('"agent":"b"', '"agent":"c"'); }],
  ] as const) {
    for (const ageMs of [60_000, MAY_BE_WRITTEN_MS + 60_000]) {
      it(`is read whole again, not taken as an append: ${where}, the file modified ${ageMs / 60_000} minutes before its first read`, () => {
        const file = chainFile(30); // > 1 KB: streamed from its bytes
        const at = new Date(Date.now() - ageMs);
        fs.utimesSync(file, at, at);
        const files = new SessionFiles(1024);
        const request: LoadRequest = { key: 'k', version: -1, path: file, local: true, changed: [file] };
        const read = (what: string) => {
          const got = files.read(request, NO_MAPPINGS, true);
          if (got === 'unchanged') throw new Error(`${what}: unchanged`);
          files.kept();
          const whole = loadTraceFile(file);
          assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), plain({ trace: whole.trace, problems: whole.problems }), `${what}: the same trace as a whole read`);
        };
        read('first read');
        fs.appendFileSync(file, line(30));
        read('an append (followed from now on)');
        // the same inode, the same bytes before the old end but for one, and one more line
        const fd = fs.openSync(file, 'r+');
        fs.writeSync(fd, `${rewrite(fs.readFileSync(file, 'utf8'))}${line(31)}`, 0);
        fs.closeSync(fd);
        read('the rewrite');
      });
    }
  }
});

describe('a file that falls back below the streaming size', () => {
  it('is read whole, not found unchanged against what the text path read before it was streamed', () => {
    // found by a helper: the text path's copy of the file was not followed while the file was streamed
    for (const start of [0, 5]) {
      const file = chainFile(start);
      const first = fs.readFileSync(file);
      const files = new SessionFiles(1024);
      const request: LoadRequest = { key: 'k', version: -1, path: file, local: true, changed: [file] };
      const read = (what: string, events: number) => {
        const got = files.read(request, NO_MAPPINGS, true);
        if (got === 'unchanged') throw new Error(`${what}: unchanged`);
        files.kept();
        assert.equal(got.loaded.trace.events.length, events, what);
      };
      read('the first read (text)', start);
      for (let k = start; k < start + 35; k++) fs.appendFileSync(file, line(k));
      assert.ok(fs.statSync(file).size >= 1024);
      read('grown past the streaming size', start + 35);
      fs.writeFileSync(file, first); // a new run truncated the log to what it was
      read('back below it', start);
    }
  });
});

describe('a file first read with fewer than 4 bytes', () => {
  it('that then turns out to be UTF-16 reads as a whole read of it', () => {
    // found by a helper: its encoding was taken from those bytes (UTF-8) and its appends decoded as UTF-8
    const utf16 = (text: string, bom: boolean) => Buffer.concat([Buffer.from(bom ? [0xff, 0xfe] : []), Buffer.from(text, 'utf16le')]);
    const body = line(0) + line(1);
    for (const [what, whole] of [
      ['empty, then UTF-16 with a byte-order mark', utf16(body, true)],
      ['1 byte (FF), then the rest of a UTF-16 file with a byte-order mark', utf16(body, true)],
      ['3 bytes of UTF-16 without a byte-order mark', utf16(body, false)],
    ] as const) {
      const cut = what.startsWith('empty') ? 0 : what.startsWith('1 byte') ? 1 : 3;
      const file = chainFile(0);
      fs.writeFileSync(file, whole.subarray(0, cut));
      const files = new SessionFiles();
      const request: LoadRequest = { key: 'k', version: -1, path: file, local: true, changed: [file] };
      assert.notEqual(files.read(request, NO_MAPPINGS, false), 'unchanged');
      files.kept();
      fs.appendFileSync(file, whole.subarray(cut));
      const got = files.read(request, NO_MAPPINGS, true);
      if (got === 'unchanged') throw new Error(`${what}: unchanged`);
      assert.deepEqual(plain({ trace: got.loaded.trace, problems: got.loaded.problems }), plain({ trace: loadTraceFile(file).trace, problems: loadTraceFile(file).problems }), what);
      assert.equal(got.loaded.trace.events.length, 2, what);
    }
  });
});

describe('SessionFiles and the files a session pulls in', () => {
  const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'claude-code-session');
  const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
  const LATE = 'agent-aa84377.jsonl';

  it('sees a sub-agent file grow, or a new one appear, while the trace file is quiet (the host is told of no change)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-session-parts-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const main = path.join(dir, `${SESSION}.jsonl`);
    const sub = path.join(dir, SESSION, 'subagents', 'agent-a93ccab.jsonl');
    const late = path.join(dir, SESSION, 'subagents', LATE);
    const whole = fs.readFileSync(sub);
    const cut = whole.indexOf(0x0a, Math.floor(whole.length / 2)) + 1;
    fs.writeFileSync(sub, whole.subarray(0, cut));
    fs.rmSync(late);
    const files = new SessionFiles();
    const request: LoadRequest = { key: 'k', version: -1, path: main, local: true };
    const first = files.read(request, NO_MAPPINGS, true);
    assert.notEqual(first, 'unchanged');
    files.kept();
    assert.equal(files.read(request, NO_MAPPINGS, true), 'unchanged', 'nothing changed on disk');

    const fresh = () => plain(loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess).trace);
    assert.equal(files.changedOnDisk(main), false, 'the poll finds nothing to read');
    // the sub-agent's file grows; the trace file does not, and the load names no changed file
    fs.appendFileSync(sub, whole.subarray(cut));
    assert.equal(files.changedOnDisk(main), true, 'the poll finds the grown file');
    const grown = files.read(request, NO_MAPPINGS, true);
    assert.notEqual(grown, 'unchanged', 'the grown sub-agent file is seen');
    if (grown === 'unchanged') return;
    files.kept();
    assert.equal(grown.grew, true, 'a session whose sub-agent file grew is being written');
    assert.deepEqual(plain(grown.loaded.trace), fresh(), 'the same trace as a fresh read of the files');

    // a new sub-agent file appears
    assert.equal(files.changedOnDisk(main), false);
    fs.copyFileSync(path.join(FIXTURE, SESSION, 'subagents', LATE), late);
    assert.equal(files.changedOnDisk(main), true, 'the poll finds the new file (its folder lists it)');
    const more = files.read(request, NO_MAPPINGS, true);
    assert.notEqual(more, 'unchanged', 'the new sub-agent file is seen');
    if (more === 'unchanged') return;
    files.kept();
    assert.equal(more.grew, true);
    assert.deepEqual(plain(more.loaded.trace), fresh(), 'with the new file: the same trace as a fresh read');
    assert.equal(files.read(request, NO_MAPPINGS, true), 'unchanged', 'and nothing more');

    // a file the import does not read appears in a folder it lists (as a Codex day folder gets other sessions' rollouts): not growth
    fs.writeFileSync(path.join(dir, SESSION, 'subagents', 'notes.txt'), 'not a transcript\n');
    const other = files.read(request, NO_MAPPINGS, true);
    if (other !== 'unchanged') {
      files.kept();
      assert.equal(other.grew, false, 'a file no import reads does not make the run in progress');
      assert.deepEqual(plain(other.loaded.trace), fresh());
    }
    assert.equal(files.read(request, NO_MAPPINGS, true), 'unchanged');
  });

  it("a trace open in an editor whose first sub-agent starts is being written, whether the watcher names the new file or the poll finds it (it was in progress or not by which came first)", () => {
    for (const named of [true, false]) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-session-editor-parts-'));
      fs.cpSync(FIXTURE, dir, { recursive: true });
      const main = path.join(dir, `${SESSION}.jsonl`);
      const parts = path.join(dir, SESSION);
      const sub = path.join(parts, 'subagents', 'agent-a93ccab.jsonl');
      const whole = fs.readFileSync(sub);
      fs.rmSync(parts, { recursive: true });
      const files = new SessionFiles();
      const text = fs.readFileSync(main, 'utf8');
      const first = files.read({ key: 'k', version: 1, path: main, local: true, text }, NO_MAPPINGS, false);
      assert.notEqual(first, 'unchanged');
      files.kept();
      // the sub-agent starts: its folder and file; the document is the same
      fs.mkdirSync(path.dirname(sub), { recursive: true });
      fs.writeFileSync(sub, whole.subarray(0, whole.indexOf(0x0a, Math.floor(whole.length / 2)) + 1));
      const next = files.read({ key: 'k', version: 1, path: main, local: true, text, ...(named ? { changed: [sub] } : {}) }, NO_MAPPINGS, true);
      assert.notEqual(next, 'unchanged', named ? 'named' : 'polled');
      if (next === 'unchanged') continue;
      assert.ok(next.loaded.trace.events.some((e) => e.agent.endsWith(':a93ccab')), 'the sub-agent read');
      assert.equal(next.grew, true, `${named ? 'named by the watcher' : 'found by the poll'}: being written`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SessionFiles and bytes that are not UTF-8', () => {
  it('warns of them where they are, in the file read first and in lines appended later, as a read by path does', () => {
    const file = chainFile(3);
    // a line written in Latin-1: its é one byte (0xE9) where UTF-8 has two
    const bad = (k: number) => Buffer.from(`${JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: 'a', content: 'caf\u00e9' })}\n`, 'latin1');
    fs.appendFileSync(file, bad(3));
    const files = new SessionFiles();
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true };
    const read = () => {
      const got = files.read({ ...request, changed: [file] }, NO_MAPPINGS, true);
      assert.notEqual(got, 'unchanged');
      if (got === 'unchanged') throw new Error('unchanged');
      files.kept();
      return got.loaded.problems.filter((p) => /not UTF-8/.test(p.message)).map((p) => [p.severity, p.range.start.line, p.range.start.character, p.file]);
    };
    const byPath = loadTraceFile(file).problems.filter((p) => /not UTF-8/.test(p.message)).map((p) => [p.severity, p.range.start.line, p.range.start.character, p.file]);
    assert.deepEqual(read(), [['warning', 3, byPath[0]![2], undefined]]);
    assert.deepEqual(byPath.map((p) => p.slice(0, 2)), [['warning', 3]], 'where a read by path says it');

    // clean lines, then one more bad line appended: still one warning, at the first such line, counting both
    fs.appendFileSync(file, line(4));
    assert.deepEqual(read().map((p) => p.slice(0, 2)), [['warning', 3]]);
    fs.appendFileSync(file, bad(5));
    const after = files.read({ ...request, changed: [file] }, NO_MAPPINGS, true);
    if (after === 'unchanged') throw new Error('unchanged');
    const warnings = after.loaded.problems.filter((p) => /not UTF-8/.test(p.message));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /2 lines hold such bytes/);
  });

  it('says nothing of a UTF-8 file whose last line ends inside a character still being written', () => {
    const file = chainFile(3);
    const e = Buffer.from(`${JSON.stringify({ id: 'e3', t: 3, type: 'message', agent: 'a', content: 'caf\u00e9' })}\n`, 'utf8');
    const cut = e.indexOf(0xc3) + 1; // after the first byte of é
    fs.appendFileSync(file, e.subarray(0, cut));
    const files = new SessionFiles();
    const got = files.read({ key: 'k', version: -1, path: file, local: true }, NO_MAPPINGS, true);
    if (got === 'unchanged') throw new Error('unchanged');
    assert.deepEqual(got.loaded.problems.filter((p) => /not UTF-8/.test(p.message)), []);
    files.kept();
    fs.appendFileSync(file, e.subarray(cut));
    const ended = files.read({ key: 'k', version: -1, path: file, local: true, changed: [file] }, NO_MAPPINGS, true);
    if (ended === 'unchanged') throw new Error('unchanged');
    assert.deepEqual(ended.loaded.problems.filter((p) => /not UTF-8/.test(p.message)), []);
    assert.equal(ended.loaded.trace.events.length, 4);
  });
});
