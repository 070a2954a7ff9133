/**
 * Fuzzing of mapping files and the otrace.mappings setting as a hostile workspace writes them
 * (seeded fast-check): random and hostile mapping files (huge globs, wrong types, controls and bidi
 * characters, paths outside the workspace, traversal, byte flips of the fixtures) and random
 * setting values naming files inside, outside, through links and by traversal, trusted or not.
 * Each must hold:
 * - parseMapping never throws; every problem is on the mapping file, inside it; a refused glob
 *   gets an error at `files.glob`; a usable mapping reads a trace without throwing;
 * - every glob answers at once (no answer takes over 500 ms of CPU; a backtracking one takes seconds);
 * - the plan never throws, never reads a file outside the workspace for the workspace (its files
 *   and its values), asks the file system nothing about a path outside the workspace for them,
 *   and reads nothing of the workspace's in Restricted Mode;
 * - a workspace mapping never reads a trace file outside the workspace (symbolic links resolved).
 * Run as a child process by mappings.test.ts (a hang fails it by timeout).
 *
 * Environment: OTRACE_FUZZ_SEED (default 11), OTRACE_FUZZ_RUNS (default 300).
 * Prints one line `fuzz mappings: N runs, seed S, T ms` on success; exits 1 with the counterexample otherwise.
 */
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { planMappings } from '../../../src/host/editor/mapping-plan';
import { mappingSource } from '../../../src/engine/mapping-sources';
import { isInside, realPathOf } from '../../../src/engine/mapping-scope';
import { globMatches, MAX_GLOB_LENGTH } from '../../../src/trace/glob';
import { parseMapping, readWithMapping } from '../../../src/trace/mapping';
import { chooseMapping } from '../../../src/trace/mapping-choice';
import { LineIndex } from '../../../src/trace/model';
import { apply, mutation } from './mutations';

const SEED = Number(process.env.OTRACE_FUZZ_SEED ?? 11);
const RUNS = Number(process.env.OTRACE_FUZZ_RUNS ?? 300);
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'mapping');
const CREW_MAP = fs.readFileSync(path.join(FIXTURES, 'crew.otrace-map.json'), 'utf8');
const CREW_LOG = fs.readFileSync(path.join(FIXTURES, 'crew.runlog.jsonl'), 'utf8');

// A workspace and a sibling folder, with links from the one into the other.
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-fuzzmap-')));
const WS = path.join(base, 'ws');
const SIBLING = path.join(base, 'sibling');
fs.mkdirSync(path.join(WS, 'tools', 'deep'), { recursive: true });
fs.mkdirSync(SIBLING);
fs.writeFileSync(path.join(WS, 'tools', 'crew.otrace-map.json'), CREW_MAP);
fs.writeFileSync(path.join(WS, 'crew.runlog.jsonl'), CREW_LOG);
fs.writeFileSync(path.join(SIBLING, 'secret.otrace-map.json'), CREW_MAP);
fs.writeFileSync(path.join(SIBLING, 'out.runlog.jsonl'), CREW_LOG);
fs.symlinkSync(path.join(SIBLING, 'secret.otrace-map.json'), path.join(WS, 'link.otrace-map.json'));
fs.symlinkSync(SIBLING, path.join(WS, 'door'));
fs.symlinkSync(path.join(SIBLING, 'out.runlog.jsonl'), path.join(WS, 'link.runlog.jsonl'));
fs.symlinkSync('/etc/passwd', path.join(WS, 'tools', 'passwd.otrace-map.json'));
fs.symlinkSync(path.join(WS, 'tools', 'crew.otrace-map.json'), path.join(WS, 'good-link.otrace-map.json'));
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }));

const insideWs = (real: string | undefined) => real !== undefined && isInside(real, WS);

/** Paths a hostile setting value or file list may name. */
const HOSTILE_PATHS = [
  '/etc/passwd',
  '/proc/self/environ',
  '~/.bashrc',
  '~',
  '~\\.ssh\\id_rsa',
  '..',
  '../sibling/secret.otrace-map.json',
  'tools/../../sibling/secret.otrace-map.json',
  'tools/deep/../../../sibling/out.runlog.jsonl',
  'door/secret.otrace-map.json',
  'door/../ws/tools/crew.otrace-map.json',
  'link.otrace-map.json',
  'good-link.otrace-map.json',
  'tools/passwd.otrace-map.json',
  'tools/crew.otrace-map.json',
  'missing/x.otrace-map.json',
  `file://${path.join(SIBLING, 'secret.otrace-map.json')}`,
  `file://${path.join(WS, 'tools', 'crew.otrace-map.json')}`,
  path.join(SIBLING, 'secret.otrace-map.json'),
  path.join(WS, 'tools', 'crew.otrace-map.json'),
  path.join(WS, 'door', 'secret.otrace-map.json'),
  `${WS}-evil/x.otrace-map.json`,
  '\u202e/etc/passwd',
  '',
  ' ',
];

/** Globs a hostile mapping file or setting key may hold. */
const hostileGlob = fc.oneof(
  fc.integer({ min: 1, max: 3 * MAX_GLOB_LENGTH }).map((n) => `${'*'.repeat(n)}x`),
  fc.integer({ min: 1, max: 400 }).map((n) => `${'*a'.repeat(n)}b`),
  fc.integer({ min: 1, max: 300 }).map((n) => `${'**/'.repeat(n)}x`),
  fc.integer({ min: 1, max: 300 }).map((n) => `${'?*'.repeat(n)}`),
  fc.constantFrom('*.runlog.jsonl', '**/*.jsonl', '**', '*', '', '../../*', '/etc/*', '\u202e*.jsonl', '[a-z]*.{json,jsonl}'),
  fc.string({ unit: fc.constantFrom('*', '?', '/', '\\', 'a', '.', '*', '**/'), maxLength: 120 }),
);

/** A value of any JSON type, or a hostile string. */
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...HOSTILE_PATHS), fc.string({ unit: 'binary', maxLength: 40 }), hostileGlob);

/** A mapping file: the fixture's fields replaced by random or hostile values, sometimes byte-mutated. */
const mappingText = fc
  .record(
    {
      files: fc.oneof(fc.record({ glob: fc.oneof(hostileGlob, anyValue), required: fc.oneof(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), anyValue) }, { requiredKeys: [] }), anyValue),
      records: anyValue,
      id: fc.oneof(fc.constant('ev_id'), anyValue),
      time: fc.oneof(fc.record({ path: fc.oneof(fc.constant('ts'), anyValue), unit: fc.oneof(fc.constantFrom('ms', 'iso', 'minutes'), anyValue) }, { requiredKeys: [] }), anyValue),
      agent: fc.oneof(fc.constant('who'), anyValue),
      type: fc.oneof(fc.record({ path: fc.constant('ev'), map: fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 4 }) }), anyValue),
      content: anyValue,
      extra: anyValue,
    },
    { requiredKeys: [] },
  )
  .chain((m) => fc.tuple(fc.constant(JSON.stringify(m, null, 1) ?? 'null'), fc.option(mutation(200, 20), { nil: undefined })))
  .map(([text, m]) => (m ? apply(text, m) : text));

let runs = 0;
const started = Date.now();

/**
 * Throws when a glob takes over 500 ms of CPU to answer. A backtracking matcher takes seconds to
 * forever on these globs, a linear one well under a millisecond; CPU time (not wall time, which a
 * loaded machine stretches: 58 ms was seen for 1,320 steps) and a wide margin keep it from flaking.
 */
function quick(glob: string, file: string): boolean {
  const before = process.cpuUsage();
  const r = globMatches(glob, file);
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  if (ms > 500) throw new Error(`glob ${JSON.stringify(glob.slice(0, 80))} (${glob.length} chars) took ${ms.toFixed(1)} ms of CPU on ${file.length} chars`);
  return r;
}

// 1. Mapping files: parse, problems positioned inside the file, refused globs at files.glob, reading never throws.
fc.assert(
  fc.property(fc.oneof(mappingText, mutation(CREW_MAP.length, CREW_MAP.split('\n').length).map((m) => apply(CREW_MAP, m))), fc.constantFrom(...HOSTILE_PATHS, 'a/b/crew.runlog.jsonl', 'x'.repeat(300)), (text, traceName) => {
    runs++;
    const mapPath = path.join(WS, 'fuzz.otrace-map.json');
    const parsed = parseMapping(text, mapPath);
    const lines = new LineIndex(text);
    for (const p of parsed.problems) {
      if (p.file !== mapPath) throw new Error(`a problem not on the mapping file: ${JSON.stringify(p)}`);
      for (const at of [p.range.start, p.range.end]) {
        if (at.line < 0 || at.line >= lines.lineCount || at.character < 0) throw new Error(`problem outside the file: ${JSON.stringify(p)}`);
      }
    }
    let glob: unknown;
    try {
      glob = JSON.parse(text)?.files?.glob;
    } catch {
      glob = undefined;
    }
    if (typeof glob === 'string' && glob.length > MAX_GLOB_LENGTH) {
      const at = parsed.problems.find((p) => p.severity === 'error' && p.message.startsWith('"files.glob" is refused'));
      if (!at) throw new Error('a glob over the limit was not refused');
      const offset = lines.lineStart(at.range.start.line) + at.range.start.character;
      if (text[offset] !== '"' || !text.startsWith(JSON.stringify(glob).slice(0, 20), offset)) throw new Error(`the refused glob's problem is not at files.glob: ${JSON.stringify(at.range)}`);
      if (parsed.glob !== undefined || parsed.mapping) throw new Error('a refused glob is kept');
    }
    if (parsed.glob !== undefined) quick(parsed.glob, traceName);
    if (parsed.mapping) readWithMapping(CREW_LOG, 'crew.runlog.jsonl', parsed.mapping);
  }),
  { seed: SEED, numRuns: RUNS },
);

// 2. The plan: nothing of the workspace's outside it, nothing asked about outside paths for it, nothing at all untrusted.
const foundFiles = ['tools/crew.otrace-map.json', 'link.otrace-map.json', 'tools/passwd.otrace-map.json', 'door/secret.otrace-map.json', 'good-link.otrace-map.json'].map((f) => path.join(WS, f));
const settingValue = fc.dictionary(fc.oneof(hostileGlob, fc.string({ maxLength: 10 })), fc.oneof(fc.constantFrom(...HOSTILE_PATHS), anyValue), { maxKeys: 6 });
fc.assert(
  fc.property(settingValue, fc.oneof(settingValue, anyValue), fc.subarray(foundFiles), fc.boolean(), (workspace, user, found, trusted) => {
    runs++;
    const asked: string[] = [];
    const realExists = nodeFs.existsSync;
    const realNative = nodeFs.realpathSync.native;
    // The module object the code under test calls through (`import * as fs` reads its properties).
    nodeFs.existsSync = ((p: fs.PathLike) => (asked.push(String(p)), realExists(p))) as typeof fs.existsSync;
    nodeFs.realpathSync.native = ((p: fs.PathLike) => (asked.push(String(p)), realNative(p))) as typeof fs.realpathSync.native;
    let plan;
    try {
      plan = planMappings({ setting: { workspace }, folders: [WS], trusted, found, home: os.homedir() });
    } finally {
      nodeFs.existsSync = realExists;
      nodeFs.realpathSync.native = realNative;
    }
    const strayed = asked.filter((p) => !insideWs(path.resolve(p)) && !isInside(WS, path.resolve(p)));
    if (strayed.length) throw new Error(`the file system was asked about ${JSON.stringify(strayed)} for the workspace`);
    for (const r of plan.read) {
      if (!trusted) throw new Error(`read in Restricted Mode: ${r.file}`);
      if (!insideWs(realPathOf(r.file))) throw new Error(`reads ${r.file} (${realPathOf(r.file)}), outside the workspace`);
      if (!r.within || r.within.length !== 1 || r.within[0] !== WS) throw new Error(`a workspace mapping that applies outside: ${JSON.stringify(r)}`);
    }
    for (const f of plan.outside) if (insideWs(realPathOf(f))) throw new Error(`${f} is inside but was left out`);
    // With the user's own value too: its entries may name any file, and apply anywhere.
    const both = planMappings({ setting: { workspace, user }, folders: [WS], trusted, found, home: os.homedir() });
    for (const r of both.read) if (r.within && !insideWs(realPathOf(r.file))) throw new Error(`reads ${r.file} for the workspace`);
    if (!trusted && both.read.some((r) => r.within)) throw new Error('a workspace entry is read in Restricted Mode');
  }),
  { seed: SEED, numRuns: RUNS },
);

// 3. A workspace mapping reads no trace outside the workspace, whatever path names it.
const workspaceSource = mappingSource({ path: path.join(WS, 'tools', 'crew.otrace-map.json'), text: CREW_MAP, origin: 'workspace', within: [WS] });
const settingSource = mappingSource({ path: path.join(WS, 'tools', 'crew.otrace-map.json'), text: CREW_MAP, origin: 'setting', glob: '**', within: [WS] });
const tracePath = fc.oneof(
  fc.constantFrom(...HOSTILE_PATHS).map((p) => (path.isAbsolute(p) ? p : path.join(WS, p))),
  fc.array(fc.constantFrom('..', '.', 'door', 'tools', 'deep', 'sibling', 'ws', 'link.runlog.jsonl', 'out.runlog.jsonl', 'crew.runlog.jsonl'), { minLength: 1, maxLength: 6 }).map((segs) => `${WS}/${segs.join('/')}`),
);
fc.assert(
  fc.property(tracePath, (file) => {
    runs++;
    // What a read of `file` opens, as the operating system resolves it (independent of the code under test).
    let opened: string | undefined;
    try {
      opened = fs.realpathSync.native(file);
    } catch {
      opened = undefined; // nothing to read
    }
    for (const source of [workspaceSource, settingSource]) {
      const chosen = chooseMapping([source], CREW_LOG, file);
      if (chosen && opened !== undefined && !insideWs(opened)) throw new Error(`a workspace mapping reads ${file}, which opens ${opened}`);
    }
  }),
  { seed: SEED, numRuns: RUNS },
);

process.stdout.write(`fuzz mappings: ${runs} runs, seed ${SEED}, ${Date.now() - started} ms\n`);
