/**
 * A file being written, in the Problems panel: a half-written last line (src/engine/shown-problems.ts)
 * is information and no error in the graph's header while the file is followed, and the same line in
 * a file read from a document's text (not followed) stays an error (the trace's own problems are
 * unchanged either way); the end of a trace read as it grew is no stop yet, judged once the host
 * reads it again after it stopped growing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { SessionStore } from '../../../src/engine/session-store';
import { BEING_WRITTEN } from '../../../src/engine/shown-problems';
import { lastExtension } from '../../../src/engine/structure-growth';
import '../../../src/trace/importers';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-shown-problems-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const ev = (id: number, t: number) => JSON.stringify({ id: `e${id}`, t, type: 'message', agent: id % 2 ? 'a' : 'b', to: id % 2 ? 'b' : 'a', content: `m${id}` });
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `${ev(from + k, from + k)}\n`).join('');

test('a half-written last line of a file being written is information, not an error; the same text read from a document stays an error', async () => {
  const file = path.join(DIR, 'live.otrace.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ trace_id: 'live', task_id: 'live', system: 'test' })}\n${lines(0, 5)}`);
  const store = new SessionStore();
  let id = 0;
  const load = async () => (await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id))!;
  await load();
  fs.appendFileSync(file, lines(5, 8));
  await load(); // seen growing: followed from here
  const half = ev(8, 8).slice(0, 20);
  fs.appendFileSync(file, half);
  const live = await load();
  // the reader's problems (a finding has a code: the run's missing stop here)
  const reading = (s: { diagnostics: { items: { code?: string }[] }[] }) => s.diagnostics.flatMap((d) => d.items).filter((d) => d.code === undefined);
  const shown = reading(live) as { severity: string; message: string; range: { start: { line: number } } }[];
  assert.deepEqual(shown.map((d) => [d.severity, d.message, d.range.start.line]), [['info', BEING_WRITTEN, 9]]);
  assert.deepEqual(store.graphOverview('k', 'title')!.problems, { errors: 0, warnings: 0 }, "the graph's header counts no error");
  // the writer ends the line: the problem goes, the record is read
  fs.appendFileSync(file, `${ev(8, 8).slice(20)}\n`);
  const ended = await load();
  assert.deepEqual(reading(ended), []);
  assert.equal(ended.counts.events, 9);
  // the same bytes with the half line, read from a document's text: not followed, an error that says the line is cut off
  const text = `${fs.readFileSync(file, 'utf8')}${half}`;
  const doc = (await store.load({ key: 'd', version: 1, path: file, local: true, text }, ++id))!;
  const items = reading(doc) as typeof shown;
  assert.equal(items.length, 1);
  assert.equal(items[0].severity, 'error');
  assert.match(items[0].message, /^last line is cut off/);
  assert.deepEqual(store.graphOverview('d', 'title')!.problems, { errors: 1, warnings: 0 });
});

test('a followed file emptied to be written anew is information while empty, not an error; a file read empty the first time stays an error', async () => {
  const file = path.join(DIR, 'rewritten.otrace.jsonl');
  const head = `${JSON.stringify({ trace_id: 'again', task_id: 'again', system: 'test' })}\n`;
  fs.writeFileSync(file, `${head}${lines(0, 5)}`);
  const store = new SessionStore();
  let id = 0;
  const load = async (key = 'k') => (await store.load({ key, version: -1, path: file, local: true, changed: [file] }, ++id))!;
  await load();
  fs.writeFileSync(file, ''); // the writer starts the file again
  const emptied = await load();
  const reading = (s: { diagnostics: { items: { code?: string; severity: string; message: string }[] }[] }) => s.diagnostics.flatMap((d) => d.items).filter((d) => d.code === undefined);
  assert.deepEqual(reading(emptied).map((d) => [d.severity, d.message]), [['info', 'the file is empty for now: it is being written (it grew or was written anew), and its records are read as they come']]);
  assert.deepEqual(store.graphOverview('k', 'title')!.problems, { errors: 0, warnings: 0 }, "the graph's header counts no error");
  fs.writeFileSync(file, `${head}${lines(0, 2)}`);
  const again = await load();
  assert.deepEqual(reading(again), [], 'its records read as they come');
  assert.equal(again.counts.events, 2);
  // an empty file read for the first time: nothing says it is being written
  const other = path.join(DIR, 'empty.otrace.jsonl');
  fs.writeFileSync(other, '');
  const first = (await store.load({ key: 'e', version: -1, path: other, local: true }, ++id))!;
  assert.deepEqual(reading(first).map((d) => [d.severity, d.message]), [['error', 'the file is empty: there is no trace to read yet']]);
});

test("the end of a trace read as it grew is no stop yet (no 'never stopped' error); read again once it stopped growing, it is judged", async () => {
  const file = path.join(DIR, 'running.otrace.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ trace_id: 'run', task_id: 'run', system: 'test' })}\n${lines(0, 5)}`);
  const store = new SessionStore();
  let id = 0;
  const load = async (force = false) => (await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file], ...(force ? { force } : {}) }, ++id))!;
  const stopDiagnostics = (s: Awaited<ReturnType<typeof load>>) => s.diagnostics.flatMap((d) => d.items).filter((d) => d.code === 'stop').map((d) => `${d.severity}: ${d.message}`);
  assert.deepEqual(stopDiagnostics(await load()), ['error: stop: no stop at end of trace: the trace ends without a stop event'], 'a file read once, not growing: never stopped');
  fs.appendFileSync(file, lines(5, 8));
  assert.deepEqual(stopDiagnostics(await load()), [], 'lines appended: the run is being written, its end is not judged');
  const findings = store.graphOverview('k', 'title')!.findings.filter((f) => f.kind === 'stop');
  assert.deepEqual(findings.map((f) => [f.severity, f.inline]), [['info', '■ no stop yet']]);
  // the host reads it again (force) when it has not grown for its live window: the end is judged
  const judged = await load(true);
  assert.deepEqual(stopDiagnostics(judged), ['error: stop: no stop at end of trace: the trace ends without a stop event']);
  assert.equal(judged.analysedAs, 'appended', 'from what the followed analysis carries, not whole');
});

test('a large followed file read again once it stopped growing: the last findings shown while its end is judged, its layout and graph go on (a delta)', async () => {
  const file = path.join(DIR, 'large.otrace.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ trace_id: 'large', task_id: 'large', system: 'test' })}\n${lines(0, 40)}`);
  // streamed from disk and opened progressively, as a trace of 64 MB and 50,000 events or more is
  const store = new SessionStore({ streamFromBytes: 1, progressiveFromEvents: 10 });
  let id = 0;
  const load = (force = false, onRead: () => void = () => undefined) =>
    store.load({ key: 'k', version: -1, path: file, local: true, changed: [file], ...(force ? { force } : {}) }, ++id, (p) => {
      if (p.read) onRead();
    });
  await load();
  fs.appendFileSync(file, lines(40, 45));
  await load(); // seen growing: followed from here
  fs.appendFileSync(file, lines(45, 50));
  await load();
  const held = store.graphOverviewUpdate('k', 'title', 800, undefined)!;
  const stopsShown = () => store.graphOverview('k', 'title')!.findings.filter((f) => f.kind === 'stop').map((f) => f.inline);
  assert.deepEqual(stopsShown(), ['■ no stop yet']);
  let whileJudged: (string | undefined)[] | undefined;
  const judged = (await load(true, () => (whileJudged = stopsShown())))!;
  assert.deepEqual(whileJudged, ['■ no stop yet'], 'the trace as read again shows the last findings while its analysis runs');
  assert.equal(judged.analysedAs, 'appended');
  assert.equal(lastExtension(), 'unchanged', 'the layout is the last one (no whole build)');
  const update = store.graphOverviewUpdate('k', 'title', 800, held.stamp)!;
  assert.ok('delta' in update, 'the page gets a delta of the overview it holds');
  assert.equal(stopsShown().includes('■ no stop yet'), false, 'the end is judged');
  // written again afterwards: an append as before
  fs.appendFileSync(file, lines(50, 52));
  assert.equal((await load())!.analysedAs, 'appended');
  assert.equal(lastExtension(), 'extended');
});

test('a tool call with no result yet in a Claude Code session being written is information; the same file read once warns that the call has no result', async () => {
  const fixture = path.join(__dirname, '..', '..', 'fixtures', 'claude-code-session');
  const session = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
  const dir = fs.mkdtempSync(path.join(DIR, 'claude-'));
  fs.cpSync(fixture, dir, { recursive: true });
  const file = path.join(dir, `${session}.jsonl`);
  const all = fs.readFileSync(file, 'utf8').split('\n');
  // line 14 is a Bash call whose result is the next record (a Task call before it is still running too)
  const upTo = (n: number) => `${all.slice(0, n).join('\n')}\n`;
  assert.match(all[14], /"tool_use"/);
  fs.writeFileSync(file, upTo(10));
  const store = new SessionStore();
  let id = 0;
  const load = async (key: string) => (await store.load({ key, version: -1, path: file, local: true, changed: [file] }, ++id))!;
  await load('k');
  fs.writeFileSync(file, upTo(15)); // appended up to the call: its result is not written yet
  const live = await load('k');
  const calls = (s: typeof live) => s.diagnostics.flatMap((d) => d.items).filter((d) => /tool calls? ha(s|ve) no result/.test(d.message)).map((d) => [d.severity, d.message.replace(/:.*/, '')]);
  assert.deepEqual(calls(live), [['info', '2 tool calls have no result yet (the session is being written; a result is read when it comes)']]);
  // the same bytes read once, by a new session: a warning that the file holds no result
  const once = await load('other');
  assert.deepEqual(calls(once), [['warning', '2 tool calls have no result in the file']]);
});
