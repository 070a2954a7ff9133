/**
 * A Claude Code session that grows while it is open: the trace file gets lines (one written in two
 * halves) and a new sub-agent file appears. Re-importing from LiveFiles gives the same trace as
 * reading the final files from scratch, and reads only about the bytes that were added.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import { nodeFileAccess } from '../../../src/trace/node-files';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'claude-code-session');
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const LATE_AGENT = 'agent-aa84377.jsonl';

/** The session folder copied with the trace file cut after `keep` bytes and one sub-agent file missing. */
function growingCopy(keep: number): { dir: string; main: string; full: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const main = path.join(dir, `${SESSION}.jsonl`);
  const full = fs.readFileSync(main);
  fs.writeFileSync(main, full.subarray(0, keep));
  fs.rmSync(path.join(dir, SESSION, 'subagents', LATE_AGENT));
  return { dir, main, full };
}

const summary = (t: ReturnType<typeof loadTrace>) => ({
  events: t.trace.events.map((e) => `${e.id} ${e.type} ${e.agent}`),
  problems: t.problems.map((p) => `${p.severity} ${p.message}`),
});

describe('LiveFiles: a session that grows while open', () => {
  it('re-imports appended lines and a new sub-agent file as a fresh read would, reading about the bytes added', () => {
    const start = fs.readFileSync(path.join(FIXTURE, `${SESSION}.jsonl`));
    const cut = start.indexOf(0x0a, Math.floor(start.length * 0.6)) + 1; // a line boundary
    const { dir, main, full } = growingCopy(cut);
    const live = new LiveFiles();
    const first = loadTrace(live.readText(main)!, main, live);
    const firstBytes = live.bytesRead;

    // The rest of the trace file in two writes, the first ending inside a line.
    const rest = full.subarray(cut);
    const middle = rest.indexOf(0x0a, Math.floor(rest.length / 2)) - 40;
    fs.appendFileSync(main, rest.subarray(0, middle));
    assert.equal(live.refresh(main), 'appended');
    const half = loadTrace(live.readText(main)!, main, live);
    assert.ok(half.trace.events.length > first.trace.events.length, 'lines of the first write are shown');
    assert.ok(half.problems.some((p) => /cut off/.test(p.message)), 'the unfinished line is reported as cut off, not lost');

    fs.appendFileSync(main, rest.subarray(middle));
    const late = path.join(dir, SESSION, 'subagents', LATE_AGENT);
    fs.copyFileSync(path.join(FIXTURE, SESSION, 'subagents', LATE_AGENT), late);
    assert.equal(live.refresh(main), 'appended');
    for (const p of live.paths()) if (p !== main) assert.equal(live.refresh(p), 'unchanged');
    const grown = loadTrace(live.readText(main)!, main, live);

    const fresh = loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess);
    assert.deepEqual(summary(grown), summary(fresh));
    assert.ok(grown.trace.events.some((e) => e.agent.endsWith(':aa84377')), 'the new sub-agent has its lane');

    const added = rest.length + fs.statSync(late).size;
    const after = live.bytesRead - firstBytes;
    assert.ok(after <= added * 1.1, `${after} bytes read after the first load for ${added} bytes added`);
    assert.ok(after >= added, 'every added byte was read');
  });

  it('reads a truncated file whole again and forgets a deleted one', () => {
    const { main } = growingCopy(20_000);
    const live = new LiveFiles();
    live.readText(main);
    fs.writeFileSync(main, fs.readFileSync(main).subarray(0, 5_000));
    assert.equal(live.refresh(main), 'reloaded');
    assert.equal(live.readText(main), fs.readFileSync(main, 'utf8'));
    fs.rmSync(main);
    assert.equal(live.refresh(main), 'missing');
    assert.equal(live.readText(main), undefined);
  });
});
