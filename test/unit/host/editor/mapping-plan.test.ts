/**
 * A workspace's mapping files and values of otrace.mappings stay inside the workspace
 * (src/host/editor/mapping-plan.ts, src/engine/mapping-scope.ts): hostile values naming /etc/passwd,
 * /proc/self/environ, ~/.bashrc, a sibling folder or a link out of the workspace are not read (the
 * file system is not even asked about them), the mappings read only trace files inside the
 * workspace, and in Restricted Mode (trust given as a parameter here) nothing of the workspace is
 * used while user settings still apply.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mock, test } from 'node:test';
import { planMappings, type MappingPlanInput } from '../../../../src/host/editor/mapping-plan';
import { mappingSource } from '../../../../src/engine/mapping-sources';
import { insideFolders, realPathOf } from '../../../../src/engine/mapping-scope';
import { SessionStore } from '../../../../src/engine/session-store';
import { chooseMapping } from '../../../../src/trace/mapping-choice';
import { MAX_GLOB_LENGTH } from '../../../../src/trace/glob';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures', 'mapping');
const CREW_MAP = fs.readFileSync(path.join(FIXTURES, 'crew.otrace-map.json'), 'utf8').replace(/"\$schema": "[^"]*",/, '');
const CREW_LOG = fs.readFileSync(path.join(FIXTURES, 'crew.runlog.jsonl'), 'utf8');

/**
 * A workspace and a sibling folder beside it: the workspace has a good mapping file, a link to a
 * mapping file in the sibling, a linked folder that leads into the sibling, and a linked trace.
 */
function scratch() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-mapscope-')));
  const ws = path.join(base, 'workspace');
  const sibling = path.join(base, 'sibling');
  fs.mkdirSync(path.join(ws, 'tools'), { recursive: true });
  fs.mkdirSync(sibling);
  const good = path.join(ws, 'tools', 'crew.otrace-map.json');
  fs.writeFileSync(good, CREW_MAP);
  const secretMap = path.join(sibling, 'secret.otrace-map.json');
  fs.writeFileSync(secretMap, CREW_MAP);
  fs.writeFileSync(path.join(sibling, 'secret.txt'), 'password=hunter2\n');
  fs.writeFileSync(path.join(sibling, 'other.runlog.jsonl'), CREW_LOG);
  const linkedMap = path.join(ws, 'evil.otrace-map.json');
  fs.symlinkSync(secretMap, linkedMap);
  const linkedDir = path.join(ws, 'door');
  fs.symlinkSync(sibling, linkedDir);
  const trace = path.join(ws, 'crew.runlog.jsonl');
  fs.writeFileSync(trace, CREW_LOG);
  const linkedTrace = path.join(ws, 'linked.runlog.jsonl');
  fs.symlinkSync(path.join(sibling, 'other.runlog.jsonl'), linkedTrace);
  return { base, ws, sibling, good, secretMap, linkedMap, linkedDir, trace, linkedTrace };
}

/** The hostile workspace values of otrace.mappings (glob -> mapping file). */
function hostileValues(s: ReturnType<typeof scratch>): Record<string, string> {
  return {
    '**/*.a.jsonl': '/etc/passwd',
    '**/*.b.jsonl': '/proc/self/environ',
    '**/*.c.jsonl': '~/.bashrc',
    '**/*.d.jsonl': '~',
    '**/*.e.jsonl': s.secretMap,
    '**/*.f.jsonl': '../sibling/secret.otrace-map.json',
    '**/*.g.jsonl': 'tools/../../sibling/secret.txt',
    '**/*.h.jsonl': 'door/secret.otrace-map.json',
    '**/*.i.jsonl': 'evil.otrace-map.json',
    '**/*.j.jsonl': `file://${s.secretMap}`,
  };
}

const input = (s: ReturnType<typeof scratch>, over: Partial<MappingPlanInput>): MappingPlanInput => ({
  setting: {},
  folders: [s.ws],
  trusted: true,
  found: [s.good, s.linkedMap, path.join(s.linkedDir, 'secret.otrace-map.json')],
  home: os.homedir(),
  ...over,
});

test('mapping scope: hostile workspace values of otrace.mappings are not read, and the file system is not asked about what they name', () => {
  const s = scratch();
  const asked: string[] = [];
  const record = (p: unknown) => asked.push(String(p));
  // The module object the code under test calls through (`import * as fs` reads its properties).
  const realExists = nodeFs.existsSync;
  const realNative = nodeFs.realpathSync.native;
  const spyExists = mock.method(nodeFs, 'existsSync', (p: fs.PathLike) => (record(p), realExists(p)));
  const spyReal = mock.method(nodeFs.realpathSync, 'native', (p: fs.PathLike) => (record(p), realNative(p)));
  let plan;
  try {
    plan = planMappings(input(s, { setting: { workspace: { ...hostileValues(s), '**/*.ok.jsonl': 'tools/crew.otrace-map.json' } }, found: [] }));
  } finally {
    spyExists.mock.restore();
    spyReal.mock.restore();
  }
  assert.deepEqual(plan.read, [{ file: s.good, origin: 'setting', glob: '**/*.ok.jsonl', within: [s.ws] }]);
  assert.deepEqual(plan.refused.map((r) => [r.glob, r.scope, r.reason]), Object.keys(hostileValues(s)).map((g) => [g, 'workspace', 'outside']));
  const outside = asked.filter((p) => !path.resolve(p).startsWith(s.ws + path.sep) && path.resolve(p) !== s.ws && !s.ws.startsWith(path.resolve(p)));
  assert.deepEqual(outside, [], 'the file system was asked about paths outside the workspace');
  assert.ok(!asked.some((p) => /passwd|environ|bashrc/.test(p)));
  assert.ok(asked.includes(s.good), 'the spy sees the calls of the code under test');
});

test('mapping scope: a workspace mapping file that links out of the workspace (file or folder) is not read; the good one is, for traces inside only', () => {
  const s = scratch();
  const plan = planMappings(input(s, {}));
  assert.deepEqual(plan.read, [{ file: s.good, origin: 'workspace', within: [s.ws] }]);
  assert.deepEqual(plan.outside.sort(), [s.linkedMap, path.join(s.linkedDir, 'secret.otrace-map.json')].sort());
  assert.equal(plan.restricted, undefined);
});

test('mapping scope: a workspace mapping reads trace files inside the workspace only (symbolic links resolved); a user mapping reads any', () => {
  const s = scratch();
  const ws = mappingSource({ path: s.good, text: CREW_MAP, origin: 'workspace', within: [s.ws] });
  const outsideTrace = path.join(s.sibling, 'other.runlog.jsonl');
  assert.equal(chooseMapping([ws], CREW_LOG, s.trace)?.source.path, s.good);
  assert.equal(chooseMapping([ws], CREW_LOG, outsideTrace), undefined, 'a trace in the sibling folder');
  assert.equal(chooseMapping([ws], CREW_LOG, s.linkedTrace), undefined, 'a link in the workspace to a trace outside');
  assert.equal(chooseMapping([ws], CREW_LOG, path.join(s.linkedDir, 'other.runlog.jsonl')), undefined, 'a trace reached through a linked folder');
  assert.equal(chooseMapping([ws], CREW_LOG, path.join(s.ws, '..', 'sibling', 'other.runlog.jsonl')), undefined, 'traversal');
  assert.equal(chooseMapping([ws], CREW_LOG, 'crew.runlog.jsonl'), undefined, 'a relative name (an untitled document) is in no folder');
  const setting = mappingSource({ path: s.good, text: CREW_MAP, origin: 'setting', glob: '*.runlog.jsonl', within: [s.ws] });
  assert.equal(chooseMapping([setting], CREW_LOG, outsideTrace), undefined, 'a workspace value of the setting');
  const user = mappingSource({ path: s.secretMap, text: CREW_MAP, origin: 'setting', glob: '*.runlog.jsonl' });
  assert.equal(chooseMapping([user], CREW_LOG, outsideTrace)?.source.path, s.secretMap, 'the user setting applies anywhere');
  // The engine: detection and loading ask the same.
  const store = new SessionStore();
  store.configure([{ path: s.good, text: CREW_MAP, origin: 'workspace', within: [s.ws] }]);
  assert.equal(store.detect(CREW_LOG, s.trace, false), true);
  assert.equal(store.detect(CREW_LOG, s.linkedTrace, false), false);
  assert.equal(store.detect(CREW_LOG, outsideTrace, false), false);
});

test('mapping scope: in Restricted Mode no workspace mapping file and no workspace value is used; user values still are', () => {
  const s = scratch();
  const userMap = path.join(s.sibling, 'secret.otrace-map.json');
  const plan = planMappings(
    input(s, {
      trusted: false,
      setting: { user: { '**/*.mine.jsonl': userMap, '**/*.rel.jsonl': 'tools/crew.otrace-map.json' }, workspace: { '**/*.ok.jsonl': 'tools/crew.otrace-map.json', '**/*.mine.jsonl': 'tools/crew.otrace-map.json' } },
    }),
  );
  assert.deepEqual(plan.read, [
    { file: userMap, origin: 'setting', glob: '**/*.mine.jsonl' },
    { file: s.good, origin: 'setting', glob: '**/*.rel.jsonl' },
  ]);
  assert.deepEqual(plan.restricted, { files: 3, settings: 2 });
  assert.deepEqual(plan.outside, []);
  // Trusted: the workspace's own values and files are read (its value overrides the user's for the same glob).
  const trusted = planMappings(input(s, { setting: { user: { '**/*.mine.jsonl': userMap }, workspace: { '**/*.ok.jsonl': 'tools/crew.otrace-map.json', '**/*.mine.jsonl': 'tools/crew.otrace-map.json' } } }));
  assert.deepEqual(
    trusted.read.map((r) => [r.origin, r.glob, r.file, !!r.within]),
    [
      ['setting', '**/*.mine.jsonl', s.good, true],
      ['setting', '**/*.ok.jsonl', s.good, true],
      ['workspace', undefined, s.good, true],
    ],
  );
  // Restricted Mode with nothing of the workspace's: nothing to say.
  assert.equal(planMappings(input(s, { trusted: false, found: [] })).restricted, undefined);
});

test('mapping scope: a setting glob over the length limit is refused with the reason (user and workspace)', () => {
  const s = scratch();
  const long = `${'*'.repeat(MAX_GLOB_LENGTH)}x`;
  const plan = planMappings(input(s, { found: [], setting: { user: { [long]: s.good }, workspace: { [`${long}y`]: 'tools/crew.otrace-map.json' } } }));
  assert.deepEqual(plan.read, []);
  assert.deepEqual(
    plan.refused.map((r) => [r.scope, r.reason, r.detail]),
    [
      ['user', 'glob', `a glob must be at most ${MAX_GLOB_LENGTH} characters long, not ${MAX_GLOB_LENGTH + 1}`],
      ['workspace', 'glob', `a glob must be at most ${MAX_GLOB_LENGTH} characters long, not ${MAX_GLOB_LENGTH + 2}`],
    ],
  );
});

test('mapping scope: real paths resolve links, and a missing file through its nearest existing folder', () => {
  const s = scratch();
  assert.equal(realPathOf(s.linkedMap), s.secretMap);
  assert.equal(realPathOf(path.join(s.linkedDir, 'new', 'x.json')), path.join(s.sibling, 'new', 'x.json'));
  assert.equal(insideFolders(path.join(s.linkedDir, 'new', 'x.json'), [s.ws]), false);
  assert.equal(insideFolders(path.join(s.ws, 'new', 'x.json'), [s.ws]), true);
  assert.equal(insideFolders(`${s.ws}-evil/x.json`, [s.ws]), false, 'a folder whose name starts like the workspace');
  assert.equal(insideFolders(s.ws, [s.ws]), true);
});
