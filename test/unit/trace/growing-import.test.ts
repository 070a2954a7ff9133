/**
 * A growing import equals the whole import, whatever the appends: real traces (otrace JSONL,
 * Claude Code sessions with their sub-agent files, Codex rollouts with child rollouts) are
 * revealed in random steps (cut at line ends or inside a line, sub-agent files appearing late,
 * now and then a file rewritten), and after each step the growing import's trace (events, edges,
 * origins, problems with their positions) must be the one `loadTrace` reads from the files' text
 * at that moment.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { detectFormat, loadTrace, type GrowingImport } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { GrowingFiles, GrowingText } from '../../../src/trace/jsonl-feed';
import { GrowingClaudeCode } from '../../../src/trace/importers/claude-code/growing';
import type { LoadedTrace } from '../../../src/trace/model';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');

/** Files in memory, each shown up to a point of its full text; a file shown up to 0 does not exist yet. */
class RevealedFiles implements GrowingFiles {
  readonly shown = new Map<string, number>();
  private readonly epochs = new Map<string, number>();
  /** Text written over a file's start by a rewrite (the file then differs from its full text there). */
  private readonly rewritten = new Map<string, string>();

  constructor(readonly full: Map<string, string>) {
    for (const p of full.keys()) this.shown.set(p, 0);
  }

  text(p: string): string | undefined {
    const n = this.shown.get(p) ?? 0;
    if (n === 0) return undefined;
    const t = this.full.get(p)!.slice(0, n);
    const r = this.rewritten.get(p);
    return r === undefined ? t : r + t.slice(r.length);
  }

  readText(p: string): string | undefined {
    return this.text(p);
  }

  /** The files shown in `dir` and the folders below it that hold a shown file; undefined when no file of the case is under it. */
  list(dir: string): string[] | undefined {
    const names = new Set<string>();
    let under = false;
    for (const p of this.full.keys()) {
      const rel = path.relative(dir, p);
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      under = true;
      if (this.text(p) !== undefined) names.add(rel.split(path.sep)[0]);
    }
    return under ? [...names] : undefined;
  }

  grown(p: string): GrowingText | undefined {
    const t = this.text(p);
    if (t === undefined) return undefined;
    const complete = t.lastIndexOf('\n') + 1;
    return { epoch: this.epochs.get(p) ?? 0, complete, tail: t.slice(complete), since: (from) => t.slice(from, complete) };
  }

  /** Shows `p` up to `n` characters (never less than before). */
  reveal(p: string, n: number): void {
    this.shown.set(p, Math.max(this.shown.get(p)!, Math.min(n, this.full.get(p)!.length)));
  }

  /** Rewrites the start of `p` (as an editor saving over it would): a new epoch. */
  rewrite(p: string): void {
    const t = this.text(p);
    if (t === undefined) return;
    const nl = t.indexOf('\n');
    if (nl < 1) return;
    this.rewritten.set(p, `${' '.repeat(nl)}\n`);
    this.epochs.set(p, (this.epochs.get(p) ?? 0) + 1);
  }
}

/** A trace and the files it is made of (the opened file first). */
interface Case {
  name: string;
  main: string;
  files: string[];
  runs: number;
  /** Format id, when the case checks how its growing import went. */
  format?: string;
  /** The opened file's text, for a case written here (its path is then never read). */
  text?: string;
  /** Lines put after the opened file's third line (unusable lines: their problems must keep their place). */
  inject?: string;
}

function caseOf(name: string, main: string, runs: number, subDir?: string): Case {
  const files = [main];
  if (subDir && fs.existsSync(subDir)) for (const n of fs.readdirSync(subDir).sort()) if (n.endsWith('.jsonl')) files.push(path.join(subDir, n));
  return { name, main, files, runs, ...(name.startsWith('Claude Code') ? { format: 'claude-code' } : {}) };
}

/** A Claude Code session and every file of its folder (sub-agent transcripts, sidecars, Workflow journals and run files). */
function sessionCase(name: string, main: string, runs: number): Case {
  const walk = (d: string): string[] => (fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)])) : []);
  return { name, main, files: [main, ...walk(main.slice(0, -'.jsonl'.length)).sort()], runs, format: 'claude-code' };
}

const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const CODEX_SPAWN = path.join(FIXTURES, 'cases', '16-codex-spawn-agent');
const CASES: Case[] = [
  ...['cut-off', 'edge-missing', 'syntax-error', 'time-backwards', 'unknown-type', 'stop-reward-fields'].map((n) => caseOf(`otrace JSONL broken/${n}`, path.join(FIXTURES, 'broken', `${n}.otrace.jsonl`), 40)),
  caseOf('otrace JSONL several traces', path.join(FIXTURES, 'several-traces', 'two-runs.otrace.jsonl'), 60),
  caseOf('otrace JSONL hostile names', path.join(FIXTURES, 'hostile', 'control-names.otrace.jsonl'), 30),
  caseOf('otrace JSONL long content', path.join(FIXTURES, 'large-content', 'long-result.otrace.jsonl'), 20),
  caseOf('Claude Code session with sub-agents', path.join(FIXTURES, 'claude-code', `${SESSION}.jsonl`), 25, path.join(FIXTURES, 'claude-code', SESSION, 'subagents')),
  { ...caseOf('Claude Code session with a bad line and a non-object line', path.join(FIXTURES, 'claude-code', `${SESSION}.jsonl`), 15, path.join(FIXTURES, 'claude-code', SESSION, 'subagents')), inject: '{"type": "user", oops\n[1, 2]\n' },
  caseOf('Claude Code session (full) with sub-agents', path.join(FIXTURES, 'claude-code-session', `${SESSION}.jsonl`), 8, path.join(FIXTURES, 'claude-code-session', SESSION, 'subagents')),
  ...['04-duplicate-message-id-snapshots', '10-compact-boundary-detached', '13-dangling-tool-use-at-eof', '14-interrupt-marker-variants', '20-cc-synthetic-api-error-rows', '24-cc-ansi-escapes-in-tool-output'].map((n) =>
    caseOf(`Claude Code case ${n}`, path.join(FIXTURES, 'cases', `${n}.jsonl`), 20),
  ),
  sessionCase('Claude Code case 28 (background calls and task notifications)', path.join(FIXTURES, 'cases', '28-cc-background-task-notifications', '0f1e2d3c-0000-4000-8000-00000000c028.jsonl'), 20),
  ...[
    ['5101', 'sub-agent sidecars'],
    ['5102', 'a Workflow run'],
    ['5103', 'a sub-agent resumed with SendMessage'],
    ['5104', 'side-channel records'],
  ].map(([n, what]) => sessionCase(`Claude Code layout: ${what}`, path.join(FIXTURES, 'claude-code-layouts', `0f1e2d3c-0000-4000-8000-0000000a${n}.jsonl`), 20)),
  caseOf('Codex rollout', path.join(FIXTURES, 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl'), 10),
  caseOf('Codex rollout (short)', path.join(FIXTURES, 'codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'), 20),
  { ...caseOf('Codex rollout with a bad line', path.join(FIXTURES, 'codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'), 15), inject: '{"type": "event_msg", "payload": \n' },
  {
    name: 'Codex rollout with child rollouts',
    main: path.join(CODEX_SPAWN, 'rollout-2026-01-01T10-00-00-019f7000-0000-7000-8000-00000000a016.jsonl'),
    files: fs.readdirSync(CODEX_SPAWN).filter((n) => n.endsWith('.jsonl')).sort().map((n) => path.join(CODEX_SPAWN, n)),
    runs: 30,
  },
];

/** A Codex rollout written here: `records` as lines, each `[type, payload]`, a second apart. */
function rollout(records: [string, Record<string, unknown>][]): string {
  return records.map(([type, payload], k) => `${JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 10, 0, k)).toISOString(), type, payload })}\n`).join('');
}

const call = (id: string): [string, Record<string, unknown>] => ['response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: id }];
const output = (id: string, text: string): [string, Record<string, unknown>] => ['response_item', { type: 'function_call_output', call_id: id, output: text }];
const userItem = (text: string): [string, Record<string, unknown>] => ['response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }];
const SYNTHETIC = path.join(FIXTURES, 'written-here');
/** A case's fields for a rollout written by this test (its text given beside them), named `rollout-…-<stem>.jsonl`. */
function writtenRollout(name: string, stem: string) {
  const main = path.join(SYNTHETIC, `rollout-2026-01-01T10-00-00-${stem}.jsonl`);
  return { name, main, files: [main], runs: 30, format: 'codex' };
}
CASES.push(
  {
    // The approval of a call declined in a record after its output (the output then reads as refused).
    ...writtenRollout('Codex rollout: a call declined after its output', 'late-decline'),
    text: rollout([
      ['session_meta', { id: 'late-decline', cwd: '/w' }],
      ['event_msg', { type: 'task_started', turn_id: 't1' }],
      ['event_msg', { type: 'user_message', message: 'list the files' }],
      call('call_1'),
      output('call_1', 'a.txt b.txt'),
      ['event_msg', { type: 'token_count', info: null }],
      ['event_msg', { type: 'exec_command_end', call_id: 'call_1', status: 'declined' }],
      ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }],
      ['event_msg', { type: 'task_complete', turn_id: 't1', last_agent_message: 'done' }],
    ]),
  },
  {
    // A user-role item first read as injected context, then a prompt repeating it (the item is that prompt).
    ...writtenRollout('Codex rollout: a prompt repeating an earlier user item', 'late-prompt'),
    text: rollout([
      ['session_meta', { id: 'late-prompt', cwd: '/w' }],
      ['event_msg', { type: 'task_started', turn_id: 't1' }],
      ['event_msg', { type: 'user_message', message: 'look at the build' }],
      userItem('fix the build'),
      ['event_msg', { type: 'token_count', info: null }],
      ['event_msg', { type: 'user_message', message: 'fix the build' }],
      call('call_1'),
      output('call_1', 'ok'),
      ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'fixed' }] }],
      ['event_msg', { type: 'task_complete', turn_id: 't1', last_agent_message: 'fixed' }],
    ]),
  },
);
CASES.push(
  // A fork: a second session_meta and the parent's replayed turns, then the fork's own (the replay closes on a later line).
  caseOf('Codex case 30 (a fork replaying its parent)', path.join(FIXTURES, 'cases', '30-codex-fork-replayed-parent-history', 'rollout-2026-01-06T09-00-00-019f8e10-4a00-7000-8000-00000000f030.jsonl'), 20),
  caseOf('Codex case 33 (exit codes)', path.join(FIXTURES, 'cases', '33-codex-exec-exit-codes-header-vs-raw.jsonl'), 20),
  {
    // A command's exit code in an exec_command_end written after its output (the result, read earlier, fails then).
    ...writtenRollout('Codex rollout: an exit code after the output', 'late-exit'),
    text: rollout([
      ['session_meta', { id: 'late-exit', cwd: '/w' }],
      ['event_msg', { type: 'task_started', turn_id: 't1' }],
      ['event_msg', { type: 'user_message', message: 'build' }],
      call('call_1'),
      output('call_1', 'Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 1\nOutput:\nbuilding\n'),
      ['event_msg', { type: 'token_count', info: null }],
      ['event_msg', { type: 'exec_command_end', call_id: 'call_1', exit_code: 2 }],
      ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'failed' }] }],
      ['event_msg', { type: 'task_complete', turn_id: 't1', last_agent_message: 'failed' }],
    ]),
  },
);

/**
 * One step: show more of a file (`at` is where in the rest, 0..1; `cut`: at a line end, inside a
 * line, or just before a line break, so the last line parses but its break is still to come), or
 * rewrite its start.
 */
type Step = { file: number; at: number; cut: 'line' | 'inLine' | 'beforeBreak'; rewrite: boolean; /** Show the file up to here instead (the line-by-line walk). */ to?: number };

// Mostly small steps (the next line, a few lines: what a running agent writes), some big ones.
const at = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.double({ min: 0, max: 0.03, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) });
const step = fc.record({ file: fc.nat(), at, cut: fc.constantFrom<Step['cut']>('line', 'inLine', 'beforeBreak'), rewrite: fc.constant(false) });
const steps = fc.array(fc.oneof({ weight: 15, arbitrary: step }, { weight: 1, arbitrary: step.map((s) => ({ ...s, rewrite: true })) }), { minLength: 1, maxLength: 12 });

/** Where a step shows `p` up to: a line end, or a point inside the line after it. */
function cutPoint(text: string, from: number, s: Step): number {
  const target = from + Math.floor((text.length - from) * s.at);
  const nl = text.indexOf('\n', target);
  const end = nl === -1 ? text.length : nl + 1;
  if (s.cut === 'line') return end;
  if (s.cut === 'beforeBreak') return nl === -1 ? end : nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  return Math.max(from + 1, end - 1 - Math.floor((end - target) / 2));
}

/** What is compared: the whole loaded trace (JSON-equal), without the byte offsets only the streaming reader sets. */
function comparable(t: LoadedTrace): unknown {
  return JSON.parse(JSON.stringify(t));
}

/** Updates that went on from the state a Claude Code import kept, and those that read the session again (per case). */
const claudeCounts = { wentOn: 0, readAgain: 0 };

/** Runs the steps; after each one the growing import (started again when it cannot go on) must equal the whole import. */
function check(c: Case, full: Map<string, string>, plan: Step[]): void {
  const files = new RevealedFiles(full);
  // The opened file exists from the start, with at least its first line.
  const first = full.get(c.main)!;
  files.reveal(c.main, first.indexOf('\n') + 1 || first.length);
  const format = detectFormat(full.get(c.main)!, c.main)!;
  let growing: GrowingImport | undefined;
  const compare = (when: string) => {
    const text = files.text(c.main)!;
    const whole = loadTrace(text, c.main, files);
    // A blank file, or too little yet to know its format, is read whole (src/trace/growing-load.ts).
    if (text.trim() === '' || detectFormat(text, c.main) !== format) return;
    let got = growing?.update();
    if (!got) {
      growing = format.grow!(c.main, files);
      got = growing.update();
    }
    assert.ok(got, `${when}: a fresh growing import reads the files`);
    const json = JSON.stringify(got);
    assert.deepEqual(JSON.parse(json), comparable(whole), `${when}: the growing import equals the whole import`);
    handed.push([got, json, when]);
  };
  // Traces handed out must not change afterwards (the import goes on with its own copies).
  const handed: [LoadedTrace, string, string][] = [];
  compare('first read');
  plan.forEach((s, k) => {
    const p = c.files[s.file % c.files.length];
    if (s.rewrite) files.rewrite(p);
    else if (s.to !== undefined) files.reveal(p, s.to);
    else files.reveal(p, cutPoint(full.get(p)!, files.shown.get(p)!, s));
    compare(`step ${k + 1} (${s.rewrite ? 'rewrite' : 'append'} ${path.basename(p)} to ${files.shown.get(p)})`);
  });
  // Then the whole of every file.
  for (const p of c.files) files.reveal(p, full.get(p)!.length);
  compare('all of the files');
  for (const [t, json, when] of handed) assert.equal(JSON.stringify(t), json, `the trace handed out at ${when} has not changed since`);
  if (growing instanceof GrowingClaudeCode) {
    claudeCounts.wentOn += growing.counts.wentOn;
    claudeCounts.readAgain += growing.counts.readAgain;
  }
}

/** The files of a case as they end (with the injected lines). */
function fullTexts(c: Case): Map<string, string> {
  const full = new Map(c.files.map((p) => [p, c.text !== undefined && p === c.main ? c.text : fs.readFileSync(p, 'utf8').replace(/^\uFEFF/, '')]));
  if (c.inject) {
    const main = full.get(c.main)!;
    let at = 0;
    for (let k = 0; k < 3; k++) at = main.indexOf('\n', at) + 1;
    full.set(c.main, main.slice(0, at) + c.inject + main.slice(at));
  }
  return full;
}

/** Most steps of the line-by-line walk through an opened file (longer files are walked a few lines a step). */
const WALK_STEPS = 240;

describe('growing import equals the whole import, line by line', () => {
  // Each line of the opened file in turn: first up to just before its line break (it parses, its
  // break is still to come), then inside it (cut off), then whole; the other files appear halfway.
  for (const c of CASES) {
    it(c.name, () => {
      const full = fullTexts(c);
      const text = full.get(c.main)!;
      const ends: number[] = [];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) ends.push(i);
      const stride = Math.max(1, Math.ceil(ends.length / WALK_STEPS));
      const plan: Step[] = [];
      const to = (file: number, at: number): Step => ({ file, at: 0, cut: 'line', rewrite: false, to: at });
      ends.forEach((end, k) => {
        if (k % stride !== 0) return;
        const start = k === 0 ? 0 : ends[k - 1] + 1;
        if (k % 3 === 1) plan.push(to(0, start + Math.floor((end - start) / 2)));
        plan.push(to(0, end), to(0, end + 1));
        if (k === Math.floor(ends.length / 2)) c.files.forEach((p, i) => i > 0 && plan.push(to(i, full.get(p)!.length)));
      });
      check(c, full, plan);
    });
  }
});

describe('growing import equals the whole import', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const full = fullTexts(c);
      assert.ok(detectFormat(full.get(c.main)!, c.main)?.grow, `${c.name}: the format grows`);
      claudeCounts.wentOn = claudeCounts.readAgain = 0;
      fc.assert(
        fc.property(steps, (plan) => check(c, full, plan)),
        { numRuns: c.runs, seed: 14 },
      );
      // The Claude Code import must go on from its state often (each run's first read, a new
      // sub-agent file and a rewrite read the session again), or the state would go untested.
      if (c.format === 'claude-code') assert.ok(claudeCounts.wentOn >= c.runs / 2, `${c.name}: ${claudeCounts.wentOn} updates went on from the state kept, ${claudeCounts.readAgain} read the session again`);
    });
  }
});

describe('a held last line that ended in a carriage return', () => {
  it('is the same record when a line break follows it, and read again when another carriage return and a break do (as the whole import reads them)', () => {
    const main = path.join(FIXTURES, 'held-cr.otrace.jsonl');
    const e0 = '{"id":"e0","t":0,"type":"message","agent":"a","content":"hi"}';
    for (const [first, then] of [
      [`${e0}\r`, '\r\n'],
      [`${e0}\r`, '\n'],
      [e0, '\r\n'],
    ]) {
      const files = new RevealedFiles(new Map([[main, first + then]]));
      files.reveal(main, first.length);
      const growing = detectFormat(first, main)!.grow!(main, files);
      assert.deepEqual(JSON.parse(JSON.stringify(growing.update())), comparable(loadTrace(first, main, files)), `${JSON.stringify(first)}: read`);
      files.reveal(main, first.length + then.length);
      const got = growing.update() ?? detectFormat(first, main)!.grow!(main, files).update();
      assert.deepEqual(JSON.parse(JSON.stringify(got)), comparable(loadTrace(first + then, main, files)), `${JSON.stringify(first)} then ${JSON.stringify(then)}`);
    }
  });
});
