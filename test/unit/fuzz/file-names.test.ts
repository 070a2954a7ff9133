/**
 * Fuzzing of untrusted names (issue 23): hostile file names and the names inside a trace
 * (brackets and Markdown links, `command:` links, `$(icon)`, HTML, bidi overrides and isolates,
 * C0 and C1 controls, lone surrogates, names of hundreds of characters, paths of thousands) go
 * through the graph model, the panel title, the SVG export's escaping and the CLI (seeded fast-check).
 * Nothing crashes, and nothing comes out raw: every surface here shows plain text (a terminal, the
 * webview's textContent, a tab title), where brackets, `command:` and `$(` are only characters but
 * control and bidi characters act, so those are shown as `⟨U+202E⟩`; a terminal line stays under
 * 1,000 characters; the SVG holds only XML characters. The content itself is kept as it is.
 *
 * Environment: OTRACE_FUZZ_SEED (default 11).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { analyzeTrace } from '../../../src/analysis';
import { safe, terminalLine } from '../../../src/cli/common';
import { buildGraph, eventDetails } from '../../../src/engine/graph-model';
import { graphPanelTitle, TITLE_NAME_CHARS } from '../../../src/host/panel/panel-title';
import { plainLabel } from '../../../src/shared/untrusted-text';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { escapeXml } from '../../../webview/export';

const SEED = Number(process.env.OTRACE_FUZZ_SEED ?? 11);
const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Characters that act instead of being shown: C0 but tab/newline/CR, DEL, C1, bidi marks, embeddings, overrides, isolates, line/paragraph separators. */
const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** XML 1.0's `Char` production. */
const XML_CHAR = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

/** Pieces a hostile name is made of. */
const PIECES = [
  '[Open the prompt](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22touch%20x%5Cn%22%7D)',
  'command:workbench.action.terminal.new',
  '$(zap)',
  '$(',
  '](',
  '[',
  '<img src=x onerror=alert(1)>',
  '&amp;',
  '"',
  "'",
  '`',
  '*_~',
  '\\',
  '..',
  ' ',
  '\u202E',
  '\u202C',
  '\u2066',
  '\u2069',
  '\u200F',
  '\u061C',
  '\u2028',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\u001b]0;title\u0007',
  '\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\',
  '\u0085',
  '\u009b2J',
  '\u009d0;t\u009c',
  '\n',
  '\r',
  '\t',
  '\u007f',
  '\ufeff',
  '\ud800',
  '\udc00',
  '😀',
  'x'.repeat(120),
];
const hostileName = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 6 })), { minLength: 1, maxLength: 14 })
  .map((parts) => parts.join(''));

/** `name` as a file name Linux takes: no `/` or NUL, at most 255 bytes with the suffix, never `.` or `..`. */
function fileName(name: string, suffix = '.otrace.jsonl'): string {
  let base = name.replace(/[/\u0000]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '_');
  while (Buffer.byteLength(base + suffix) > 255) base = Array.from(base).slice(0, -1).join('');
  return `${base || 'x'}${suffix}`;
}

/** A small trace whose agent, target, tool, ids, trace id and content are `name`, with a bad line whose problem quotes it. */
function traceNamed(hostile: string): string {
  const name = `n${hostile}`; // an empty agent or trace id is a problem of its own: the event is skipped
  const lines = [
    { trace_id: name, task_id: name },
    { id: `spawn ${name}`, t: 0, type: 'spawn', agent: name, to: `${name} 2`, content: name },
    { id: `call ${name}`, t: 1, type: 'tool_call', agent: `${name} 2`, tool: name, content: name, tokens: 5 },
    { id: `result ${name}`, t: 2, type: 'tool_result', agent: `${name} 2`, tool: name, content: name, parent: `call ${name}` },
    { id: `call again ${name}`, t: 3, type: 'tool_call', agent: `${name} 2`, tool: name, content: name, tokens: 5 },
    { id: `return ${name}`, t: 4, type: 'return', agent: `${name} 2`, to: name, content: name },
    { id: `stop ${name}`, t: 5, type: 'stop', agent: name, reason: 'error', detail: name },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"id": ${JSON.stringify(hostile)}, "t": -1, "type": "message", "agent": "x"}\n`;
}

/** The first raw character of `text`, as `U+XXXX at N`, or undefined. */
function raw(text: string): string | undefined {
  const m = RAW.exec(text);
  return m ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}` : undefined;
}

test('hostile names through the panel title, the graph model, the SVG escaping and the CLI text helpers: no crash, nothing raw (fast-check, seeded)', (t) => {
  let runs = 0;
  fc.assert(
    fc.property(hostileName, (name) => {
      runs++;
      const file = path.join('/tmp', `dir ${fileName(name, '')}`, fileName(name));
      for (const locked of [false, true]) {
        for (const gone of [false, true]) {
          const title = graphPanelTitle(file, locked, gone);
          assert.equal(raw(title), undefined, `tab title ${JSON.stringify(title)}`);
          assert.ok(title.length <= 'Graph: '.length + TITLE_NAME_CHARS + ' (locked) (deleted)'.length);
          assert.equal(title.endsWith(' (deleted)'), gone);
        }
      }
      const loaded = loadTrace(traceNamed(name), file);
      assert.ok(loaded.trace.events.length >= 6, `${loaded.trace.events.length} events read: ${loaded.problems.map((p) => p.message).join('; ').slice(0, 300)}`);
      const g = buildGraph(loaded, path.basename(file), Infinity, analyzeTrace(loaded));
      for (const n of g.nodes) {
        assert.equal(raw(n.label), undefined, `label ${JSON.stringify(n.label)}`);
        for (const [k, v] of n.fields) assert.equal(raw(v), undefined, `field ${k} ${JSON.stringify(v)}`);
      }
      for (const f of g.findings) assert.equal(raw(f.message) ?? raw(f.inline), undefined, `finding ${JSON.stringify(f.message)}`);
      for (const l of g.lanes) assert.equal(raw(plainLabel(l.name)), undefined, `lane ${JSON.stringify(l.name)}`);
      const d = eventDetails(loaded.trace.events[0]);
      assert.equal(d.text, `n${name}`.length > 2000 ? d.text : `n${name}`, 'the raw content view keeps the content as it is');
      for (const [k, v] of d.fields) assert.equal(raw(v), undefined, `details ${k} ${JSON.stringify(v)}`);
      assert.match(escapeXml(name), XML_CHAR, `SVG text ${JSON.stringify(escapeXml(name))}`);
      for (const p of loaded.problems) {
        const line = terminalLine(`${safe(file, 300)}:1:1: ${p.severity}: ${safe(p.message, 600)}`);
        assert.equal(raw(line), undefined, `CLI problem line ${JSON.stringify(line)}`);
        assert.ok(line.length <= 1000 && !line.includes('\n'));
      }
    }),
    { seed: SEED, numRuns: 300 },
  );
  t.diagnostic(`names fuzz: ${runs} runs, seed ${SEED}`);
});

test('the CLI on files with hostile names, in a folder nested past 2,000 characters: no crash, nothing raw, no line over 1,000 characters', async () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-names-fuzz-'));
  let deep = path.join(scratch, 'corpus');
  for (let k = 0; k < 10; k++) deep = path.join(deep, `${'d'.repeat(200)}\u202e${k}`);
  fs.mkdirSync(deep, { recursive: true });
  const names = fc.sample(hostileName, { seed: SEED, numRuns: 12 });
  const files = names.map((name, k) => path.join(k % 2 ? deep : path.join(scratch, 'corpus'), fileName(`${k} ${name}`)));
  files.forEach((f, k) => fs.writeFileSync(f, traceNamed(names[k])));
  const corpus = path.join(scratch, 'corpus');
  const otrace = async (...args: string[]) => {
    try {
      const r = await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: scratch, encoding: 'utf8', maxBuffer: 1 << 28 });
      return { args, code: 0, stdout: r.stdout, stderr: r.stderr, json: args.includes('--json') || args[0] === 'convert' || (args[0] === 'dataset' && !args.includes('-o')) };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      if (typeof e.code !== 'number') throw err;
      return { args, code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '', json: args.includes('--json') || args[0] === 'convert' || (args[0] === 'dataset' && !args.includes('-o')) };
    }
  };
  const outputs = await Promise.all([
    otrace('validate', ...files),
    ...files.slice(0, 4).map((f) => otrace('stats', f)),
    otrace('stats', files[1], '--json'),
    otrace('analyze', corpus),
    otrace('analyze', corpus, '--json'),
    otrace('analyze', files[0]),
    otrace('dataset', 'stops', corpus),
    otrace('dataset', 'stops', corpus, '-o', path.join(scratch, 'stops.jsonl')),
    otrace('convert', files[1], '--to', 'otrace-jsonl'),
  ]);
  const faults: string[] = [];
  for (const o of outputs) {
    const what = `otrace ${o.args[0]} (${o.args.length} args)`;
    if (o.code !== 0 && o.code !== 1) faults.push(`${what}: exit ${o.code}: ${JSON.stringify(o.stderr.slice(0, 300))}`);
    if (/\n\s+at /.test(o.stderr)) faults.push(`${what}: a stack trace: ${JSON.stringify(o.stderr.slice(0, 300))}`);
    for (const [which, text] of [['stdout', o.stdout], ['stderr', o.stderr]] as const) {
      const bad = raw(text);
      if (bad) faults.push(`${what} ${which}: raw ${bad}`);
      if (which === 'stdout' && o.json) continue; // JSON data: one value may be long
      const long = text.split('\n').find((l) => l.length > 1000);
      if (long) faults.push(`${what} ${which}: a line of ${long.length} characters`);
    }
  }
  assert.deepEqual(faults, []);
  assert.equal(JSON.parse(outputs[5].stdout).agents[0], `n${names[1]}`, 'JSON keeps the name exactly');
  fs.rmSync(scratch, { recursive: true, force: true });
});
