/**
 * What the CLI prints from a trace is safe on a terminal (issue 23). Names, ids, tool names, content
 * and file names holding NUL, ESC, BEL, the C1 controls U+0085, U+009B (CSI) and U+009D (OSC), and
 * bidi overrides/isolates reach no terminal raw, from any command: text output shows them as
 * `⟨U+202E⟩`; JSON output (`--json`, `convert`, `dataset`) writes them as `\u009b` escapes, which
 * parse back to the same strings. No text line from trace content is over 1,000 characters, even
 * for a trace of 100,000 agents (generated here): lists are clipped with "… and 99,990 more".
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const run = promisify(execFile);

/** C0 controls but newline, DEL, C1 controls, Arabic letter mark, LRM/RLM, line/paragraph separators, bidi embeddings, overrides and isolates. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONGEST_LINE = 1000;

/** Hostile pieces of names: each is in an agent name, an id, a tool name, the content and the trace id. */
const HOSTILE = ['rtl\u202Egnp.exe\u202C', 'nul\u0000x', 'esc\u001b[31mred\u001b]0;title\u0007', 'bel\u0007', 'nel\u0085x', 'csi\u009b2J', 'osc\u009d0;t\u009c', 'iso\u2066x\u2069', 'lrm\u200e\u2028'];
const LONG = `long${'A'.repeat(5000)}\u202e`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-terminal-'));
const SMALL_DIR = path.join(scratch, 'small');
const BIG_DIR = path.join(scratch, 'big');
fs.mkdirSync(SMALL_DIR);
fs.mkdirSync(BIG_DIR);
/** A file name with ESC, a C1 control and a right-to-left override (Linux allows all but `/` and NUL). */
const SMALL = path.join(SMALL_DIR, 'run\u202Elnosj.\u001b[2J\u009b.otrace.jsonl');
const BIG = path.join(BIG_DIR, 'agents-100k.otrace.jsonl');

/** The hostile trace's agents, in order of first appearance. */
const SMALL_AGENTS = [...HOSTILE.map((h) => `agent ${h}`), LONG];

function smallTrace(): string {
  const lines: object[] = [{ trace_id: `trace ${HOSTILE.join('')}`, task_id: HOSTILE[5] }];
  let t = 0;
  HOSTILE.forEach((h, k) => {
    const agent = `agent ${h}`;
    const next = SMALL_AGENTS[k + 1];
    lines.push({ id: `spawn ${h}`, t: t++, type: 'spawn', agent, to: next, content: `content ${h}` });
    lines.push({ id: `call ${h}`, t: t++, type: 'tool_call', agent, tool: `tool ${h}`, content: `ls ${h}`, tokens: 10 });
    lines.push({ id: `result ${h}`, t: t++, type: 'tool_result', agent, tool: `tool ${h}`, content: `out ${h}`, parent: `call ${h}` });
    lines.push({ id: `msg ${h}`, t: t++, type: 'message', agent, to: next, content: `hand-off ${h}`, credit: 0.1 });
  });
  lines.push({ id: `again ${HOSTILE[0]}`, t: t++, type: 'tool_call', agent: LONG, tool: `tool ${HOSTILE[0]}`, content: `ls ${HOSTILE[0]}` });
  lines.push({ id: `stop ${HOSTILE[2]}`, t: t++, type: 'stop', agent: LONG, reason: 'task_complete', detail: `done ${HOSTILE.join('')}` });
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  // a bad line: its problem message quotes the hostile id
  return `${text}\n{"id": "bad ${HOSTILE.map((h) => JSON.stringify(h).slice(1, -1)).join('')}", "t": -1, "type": "message", "agent": "x"}\n`;
}

/** 100,000 agents, one event each (names with controls), and a stop. */
function bigTrace(): string {
  const out: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    const h = HOSTILE[i % HOSTILE.length];
    out.push(JSON.stringify({ id: `e${i}`, t: i, type: i % 2 ? 'message' : 'tool_call', agent: `agent-${i} ${h}`, ...(i % 2 ? {} : { tool: `tool ${h}` }), content: `c ${h}` }));
  }
  out.push(JSON.stringify({ id: 'end', t: 100_000, type: 'stop', agent: `agent-0 ${HOSTILE[0]}`, reason: 'task_complete' }));
  return out.join('\n') + '\n';
}

fs.writeFileSync(SMALL, smallTrace());
fs.writeFileSync(BIG, bigTrace());

interface Output {
  args: string[];
  stdout: string;
  stderr: string;
  code: number;
}

async function otrace(...args: string[]): Promise<Output> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { cwd: scratch, encoding: 'utf8', maxBuffer: 1 << 30 });
    return { args, stdout: r.stdout, stderr: r.stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    if (typeof e.code !== 'number') throw err;
    return { args, stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code };
  }
}

/** The text with every non-ASCII or control character as `\\uXXXX`, for a failure message that cannot act on the terminal either. */
const shown = (text: string) => text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** What is wrong with one output: its first raw control or bidi character, and its longest line when over {@link LONGEST_LINE} characters (`lines: false`: not checked). */
function faults(o: Output, text: string, which: string, lines = true): string[] {
  const out: string[] = [];
  const command = `otrace ${shown(o.args.join(' '))} (${which})`;
  const bad = RAW.exec(text);
  if (bad) out.push(`${command}: raw U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${bad.index}: ${shown(text.slice(Math.max(0, bad.index - 30), bad.index + 30))}`);
  const longest = lines ? text.split('\n').reduce((m, l) => (l.length > m.length ? l : m), '') : '';
  if (longest.length > LONGEST_LINE) out.push(`${command}: a line of ${longest.length.toLocaleString('en-US')} characters: ${shown(longest.slice(0, 100))}…`);
  return out;
}

/** Every fault of the outputs (stdout lines not checked when `stdoutLines` is false: JSON data). */
function allFaults(outputs: Output[], stdoutLines = true): string[] {
  return outputs.flatMap((o) => [...faults(o, o.stdout, 'stdout', stdoutLines), ...faults(o, o.stderr, 'stderr')]);
}

const FORMATS = ['otrace-json', 'otrace-jsonl', 'survey-json', 'chrome-trace'];

test('text output of every command: controls and bidi shown as ⟨U+…⟩, never raw; no line over 1,000 characters', async () => {
  const outputs = await Promise.all([
    otrace('validate', SMALL),
    otrace('stats', SMALL),
    otrace('analyze', SMALL),
    otrace('analyze', SMALL_DIR),
    otrace('summary', SMALL),
    otrace('analyze', SMALL, SMALL), // several files: the corpus table
    otrace('dataset', 'stops', SMALL_DIR, '-o', path.join(scratch, 'stops.jsonl')),
    otrace('validate', path.join(SMALL_DIR, 'missing\u202e\u009b.jsonl')),
    otrace('stats', path.join(SMALL_DIR, 'no-dir\u202e\u009b', 'x.jsonl')),
    otrace('analyze', path.join(scratch, 'empty\u202e\u009b')),
    otrace('convert', SMALL, '--to', 'yaml\u202e\u009b'),
    otrace('bogus\u202e\u009b\u001b[2J'),
  ]);
  assert.deepEqual(allFaults(outputs), []);
  const stats = outputs[1].stdout;
  assert.match(stats, /agent rtl⟨U\+202E⟩gnp\.exe⟨U\+202C⟩/, 'the override is shown, not applied');
  assert.match(stats, /agent esc⟨U\+001B⟩\[31mred⟨U\+001B⟩\]0;title⟨U\+0007⟩/);
  assert.match(stats, /agent csi⟨U\+009B⟩2J/);
  assert.match(stats, /run⟨U\+202E⟩lnosj\.⟨U\+001B⟩\[2J⟨U\+009B⟩\.otrace\.jsonl/, 'the file name too');
  assert.match(outputs[0].stdout, /bad rtl(⟨U\+202E⟩|\\u202e)gnp/, 'problem messages too (a quoted value as a JSON string)');
  assert.match(outputs[4].stdout, /^ {2}agent rtl⟨U\+202E⟩gnp\.exe⟨U\+202C⟩: /m, 'summary: the agent lines too');
});

test('a trace of 100,000 agents: the lists are clipped ("… and N more"), no line over 1,000 characters', async () => {
  const outputs = await Promise.all([otrace('validate', BIG), otrace('stats', BIG)]); // analyze's lists are clipped the same way (its 100k run takes 12 s)
  assert.deepEqual(allFaults(outputs), []);
  const agents = outputs[1].stdout.split('\n').find((l) => l.trimStart().startsWith('agents'));
  assert.match(agents ?? '', /^ {2}agents {5}100000: agent-0 .*, … and 99,9\d\d more$/, agents?.slice(0, 200));
});

test('JSON output (--json, convert, dataset): C1 and bidi as \\u escapes, never raw; it parses back to the same strings', async () => {
  const outputs = await Promise.all([
    otrace('stats', SMALL, '--json'),
    otrace('analyze', SMALL, '--json'),
    otrace('analyze', SMALL_DIR, '--json'),
    otrace('dataset', 'stops', SMALL_DIR),
    ...FORMATS.map((f) => otrace('convert', SMALL, '--to', f)),
    otrace('summary', SMALL, '--json'),
  ]);
  assert.deepEqual(allFaults(outputs, false), []);
  const stats = JSON.parse(outputs[0].stdout);
  assert.deepEqual(stats.agents, SMALL_AGENTS, 'the names, exactly');
  JSON.parse(outputs[1].stdout);
  JSON.parse(outputs[2].stdout);
  assert.deepEqual(JSON.parse(outputs[outputs.length - 1].stdout).agents.map((a: { name: string }) => a.name), SMALL_AGENTS, 'summary --json: the names, exactly');
  for (const line of outputs[3].stdout.trim().split('\n')) JSON.parse(line);
  const json = JSON.parse(outputs[4].stdout);
  assert.deepEqual([...new Set(json.events.map((e: { agent: string }) => e.agent))], SMALL_AGENTS, 'otrace-json keeps every name');
  const jsonl = outputs[5].stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(jsonl.some((r) => r.tool === `tool ${HOSTILE[5]}`), 'otrace-jsonl keeps the tool names');
  assert.ok(outputs[6].stdout.includes('\\u009b'), 'a C1 control is written as a JSON escape');
  assert.ok(outputs[7].stdout.includes('\\u202e'), 'a bidi override is written as a JSON escape');
});

test('convert -o FILE: the file holds no raw C1 or bidi either, and reads back to the same trace', async () => {
  for (const f of FORMATS) {
    const out = path.join(scratch, `back.${f}.json`);
    const o = await otrace('convert', SMALL, '--to', f, '-o', out);
    assert.equal(o.stdout, '');
    const text = fs.readFileSync(out, 'utf8');
    assert.deepEqual(faults(o, text, out, false), []);
    JSON.parse(f === 'otrace-jsonl' ? `[${text.trim().split('\n').join(',')}]` : text);
    if (f === 'chrome-trace') continue; // the Chrome trace format is a picture of the trace, not read back
    const again = JSON.parse((await otrace('stats', out, '--json')).stdout);
    assert.deepEqual(again.agents, SMALL_AGENTS, `${f}: the names are the same after the round trip`);
  }
});

test('otrace analyze places a record that does not start its line by line and column (a log kept as one JSON string: every record on one line read FILE:9)', async () => {
  const file = path.join(ROOT, 'test', 'fixtures', 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
  const { stdout } = await run(process.execPath, [CLI, 'analyze', file]);
  const places = [...stdout.matchAll(/trace_0_ChatDev\.json:(\d+)(?::(\d+))?\)/g)].map((m) => [Number(m[1]), m[2] === undefined ? undefined : Number(m[2])]);
  assert.ok(places.length >= 3, stdout);
  assert.ok(places.every(([, col]) => col !== undefined && col > 1), JSON.stringify(places));
  assert.ok(new Set(places.map((p) => p.join(':'))).size > 1, 'the records told apart');
  // a JSONL record starts its line: FILE:LINE as before
  const demo = await run(process.execPath, [CLI, 'analyze', path.join(ROOT, 'samples', 'demo.otrace.jsonl')]);
  assert.match(demo.stdout, /demo\.otrace\.jsonl:\d+\)/);
});
