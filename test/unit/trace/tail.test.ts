/** Following an appended JSONL trace: only new bytes are read; partial lines wait; rewrites reload. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readAppended, tailStateOf, type TailState } from '../../../src/trace/tail';

function scratch(content: string | Buffer): { file: string; state: TailState } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-tail-')), 'run.jsonl');
  fs.writeFileSync(file, content);
  return { file, state: tailStateOf(fs.readFileSync(file), fs.statSync(file).ino) };
}

const line = (i: number) => `${JSON.stringify({ id: `e${i}`, type: 'message', agent: 'a', t: i, content: 'x'.repeat(40) })}\n`;

describe('tail: following an appended trace', () => {
  it('hands on complete lines only; a line written in two halves arrives whole', () => {
    const { file, state } = scratch(line(1) + line(2));
    const half = line(3).slice(0, 20);
    fs.appendFileSync(file, half);
    const first = readAppended(file, state);
    assert.equal(first.kind, 'none');
    fs.appendFileSync(file, line(3).slice(20) + line(4));
    const second = readAppended(file, first.kind === 'none' ? first.state : state);
    assert.equal(second.kind, 'append');
    if (second.kind !== 'append') return;
    assert.equal(second.text, line(3) + line(4));
    assert.equal(second.state.offset, fs.statSync(file).size);
    assert.equal(readAppended(file, second.state).kind, 'none');
    // The first half was read once: bytes read = bytes appended.
    const appended = Buffer.byteLength(line(3) + line(4));
    assert.equal((first.kind === 'none' ? first.bytesRead : 0) + second.bytesRead, appended);
  });

  it('never cuts a multi-byte character written across two appends', () => {
    const { file, state } = scratch(line(1));
    const bytes = Buffer.from('{"id":"e2","type":"message","agent":"é","t":2}\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1; // inside "é"
    fs.appendFileSync(file, bytes.subarray(0, cut));
    const mid = readAppended(file, state);
    assert.equal(mid.kind, 'none');
    fs.appendFileSync(file, bytes.subarray(cut));
    const done = readAppended(file, mid.kind === 'none' ? mid.state : state);
    assert.ok(done.kind === 'append' && JSON.parse(done.text).agent === 'é');
  });

  it('reads about the appended bytes, not the file again', () => {
    const { file, state: start } = scratch(Array.from({ length: 200 }, (_, i) => line(i)).join(''));
    let state = start;
    let read = 0;
    let appended = 0;
    for (let i = 200; i < 230; i++) {
      fs.appendFileSync(file, line(i));
      appended += Buffer.byteLength(line(i));
      const r = readAppended(file, state);
      assert.equal(r.kind, 'append');
      if (r.kind !== 'append') return;
      read += r.bytesRead;
      state = r.state;
    }
    assert.equal(read, appended);
  });

  it('asks for a reload when the file was truncated, replaced or rewritten', () => {
    const a = scratch(line(1) + line(2));
    fs.writeFileSync(a.file, line(1));
    assert.deepEqual(readAppended(a.file, a.state), { kind: 'reload', reason: 'truncated', bytesRead: 0 });

    const b = scratch(line(1) + line(2));
    const other = `${b.file}.new`;
    fs.writeFileSync(other, line(1) + line(2) + line(3));
    fs.renameSync(other, b.file);
    assert.equal(readAppended(b.file, b.state).kind, 'reload');

    const c = scratch(line(1) + line(2));
    fs.writeFileSync(c.file, line(17) + line(18) + line(19)); // same inode, longer, lines of other lengths
    const r = readAppended(c.file, c.state);
    assert.ok(r.kind === 'reload' && r.reason === 'rewritten', JSON.stringify(r));
  });

  it('asks for a reload when a run started again over its log, even where the byte before the old end is still a line break', () => {
    const a = scratch(line(1) + line(2));
    assert.equal(line(7).length, line(1).length);
    fs.writeFileSync(a.file, line(7) + line(8) + line(9)); // same inode, grown, a line break where the old end was
    assert.equal(fs.readFileSync(a.file)[a.state.offset - 1], 0x0a);
    const r = readAppended(a.file, a.state);
    assert.ok(r.kind === 'reload' && r.reason === 'rewritten', JSON.stringify(r));
  });

  it('asks for a reload when the file was rewritten at the same size', () => {
    const a = scratch(line(1) + line(2));
    fs.writeFileSync(a.file, line(3) + line(4));
    assert.equal(fs.statSync(a.file).size, a.state.offset);
    const r = readAppended(a.file, a.state);
    assert.ok(r.kind === 'reload' && r.reason === 'rewritten', JSON.stringify(r));
  });

  it('asks for a reload when the last line of a long file was rewritten and lines added, its first 4 KB the same', () => {
    const lines = Array.from({ length: 200 }, (_, i) => line(i));
    const a = scratch(lines.join(''));
    const last = lines[199].replace('"a"', '"b"');
    fs.writeFileSync(a.file, lines.slice(0, 199).join('') + last + line(200));
    assert.equal(fs.readFileSync(a.file)[a.state.offset - 1], 0x0a);
    const r = readAppended(a.file, a.state);
    assert.ok(r.kind === 'reload' && r.reason === 'rewritten', JSON.stringify(r));
  });

  it('goes on comparing the ends of what it read, as the file grows past 4 KB in small appends', () => {
    const { file, state: start } = scratch(line(0));
    let state = start;
    for (let i = 1; i < 120; i++) {
      fs.appendFileSync(file, line(i));
      const r = readAppended(file, state);
      assert.equal(r.kind, 'append', `append ${i}`);
      if (r.kind !== 'append') return;
      state = r.state;
    }
    const bytes = fs.readFileSync(file);
    assert.deepEqual(state.ends, { seen: bytes.length, head: bytes.subarray(0, 4096), tail: bytes.subarray(bytes.length - 4096) });
    const started = Buffer.concat([bytes, Buffer.from(line(120))]);
    started[started.indexOf('e0')] = 'f'.charCodeAt(0); // a first id changed: another run's start
    fs.writeFileSync(file, started);
    assert.equal(readAppended(file, state).kind, 'reload');
  });

  it('a cut-off last line at the first load is read again once complete', () => {
    const { file, state } = scratch(line(1) + line(2).slice(0, 10));
    assert.equal(state.pending.toString(), line(2).slice(0, 10));
    fs.appendFileSync(file, line(2).slice(10));
    const r = readAppended(file, state);
    assert.ok(r.kind === 'append' && r.text === line(2));
  });

  it('throws the file system error for a deleted file', () => {
    const { file, state } = scratch(line(1));
    fs.rmSync(file);
    assert.throws(() => readAppended(file, state), /ENOENT/);
  });
});
