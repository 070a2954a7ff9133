/**
 * Following a trace on disk with LiveFiles and a GrowingLoad: appended lines (one in two halves)
 * go into the import's state, not a whole read; a truncated or replaced file, or an edited first
 * line, reads whole; a new sub-agent file appears. Each load equals a fresh read of the files.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadTrace } from '../../../src/trace/formats';
import { GrowingLoad } from '../../../src/trace/growing-load';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import type { LoadedTrace } from '../../../src/trace/model';
import { nodeFileAccess } from '../../../src/trace/node-files';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

const plain = (t: LoadedTrace) => JSON.parse(JSON.stringify(t));
/** No mapping files (the same list each load, as a session keeps it). */
const NO_MAPPINGS: MappingSource[] = [];

/** Loads `file` through `growing` after refreshing the files, and checks it against a fresh read. */
function loadAndCheck(growing: GrowingLoad, live: LiveFiles, file: string, what: string): LoadedTrace {
  for (const p of live.paths()) live.refresh(p);
  const loaded = growing.load(file, live, NO_MAPPINGS);
  const fresh = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  assert.deepEqual(plain(loaded), plain(fresh), `${what}: the same trace as a fresh read`);
  return loaded;
}

describe('GrowingLoad over LiveFiles', () => {
  it('takes appended otrace JSONL lines into its state and reads a truncated, replaced or edited file whole', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-grow-'));
    const file = path.join(dir, 'run.otrace.jsonl');
    const lines = fs.readFileSync(path.join(FIXTURES, 'several-traces', 'two-runs.otrace.jsonl'), 'utf8').split('\n').filter((l) => l);
    fs.writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    const live = new LiveFiles();
    const growing = new GrowingLoad();
    loadAndCheck(growing, live, file, 'first load');
    assert.deepEqual(growing.counts, { appended: 0, whole: 1 });

    const next = `${lines.slice(3, 6).join('\n')}\n`;
    fs.appendFileSync(file, next.slice(0, next.length - 10));
    loadAndCheck(growing, live, file, 'a write ending inside a line');
    fs.appendFileSync(file, next.slice(next.length - 10));
    const grown = loadAndCheck(growing, live, file, 'the rest of that line');
    assert.deepEqual(growing.counts, { appended: 2, whole: 1 }, 'appends go into the state kept');
    assert.ok(grown.trace.events.length > 0);

    fs.truncateSync(file, Buffer.byteLength(`${lines.slice(0, 2).join('\n')}\n`));
    loadAndCheck(growing, live, file, 'truncated');
    assert.equal(growing.counts.whole, 2, 'a truncated file reads whole');

    fs.appendFileSync(file, `${lines.slice(2).join('\n')}\n`);
    loadAndCheck(growing, live, file, 'appended after the truncation');
    assert.equal(growing.counts.appended, 3);

    const other = path.join(dir, 'other');
    fs.writeFileSync(other, `${lines.slice(0, 4).join('\n')}\n`);
    fs.renameSync(other, file);
    loadAndCheck(growing, live, file, 'replaced by another file');
    assert.equal(growing.counts.whole, 3, 'a replaced file reads whole');
  });

  it('follows a Claude Code session whose lines are appended and whose new sub-agent file appears', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-grow-'));
    fs.cpSync(path.join(FIXTURES, 'claude-code'), dir, { recursive: true });
    const main = path.join(dir, `${SESSION}.jsonl`);
    const late = path.join(dir, SESSION, 'subagents', 'agent-aa84377.jsonl');
    const full = fs.readFileSync(main);
    const lateText = fs.readFileSync(late);
    const cut = full.indexOf(0x0a, Math.floor(full.length / 2)) + 1;
    fs.writeFileSync(main, full.subarray(0, cut));
    fs.rmSync(late);
    const live = new LiveFiles();
    const growing = new GrowingLoad();
    const first = loadAndCheck(growing, live, main, 'first load');
    fs.appendFileSync(main, full.subarray(cut, cut + 100));
    loadAndCheck(growing, live, main, 'a write ending inside a line');
    fs.appendFileSync(main, full.subarray(cut + 100));
    fs.writeFileSync(late, lateText);
    const grown = loadAndCheck(growing, live, main, 'the rest, and the new sub-agent file');
    assert.ok(grown.trace.events.some((e) => e.agent.endsWith(':aa84377')) && !first.trace.events.some((e) => e.agent.endsWith(':aa84377')), "the new sub-agent's lane appears");
    assert.deepEqual(growing.counts, { appended: 2, whole: 1 });
  });
});
