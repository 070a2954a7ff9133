/**
 * Bring your own format in a real VS Code (docs/mapping.md, "In VS Code"): an in-house JSON Lines
 * log opens with lanes and edges through a workspace `*.otrace-map.json` (by its glob), another one
 * through the `otrace.mappings` setting; a wrong mapping gets positioned diagnostics in the mapping
 * file; changing the setting or a mapping file reads the open trace again. A hostile workspace (a
 * mapping file linking to /etc/passwd or a sibling folder, workspace values of otrace.mappings
 * naming /etc/passwd, /proc/self/environ, ~/.bashrc or a sibling folder) reads nothing outside the
 * workspace, and a workspace mapping reads no trace outside it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { evalInWebview } from './bridge';
import { untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const MAPPING_DIR = path.join(ROOT, 'test', 'fixtures', 'mapping');
const CREW = path.join(MAPPING_DIR, 'crew.runlog.jsonl');
const TEAM = path.join(MAPPING_DIR, 'team', 'team-log.jsonl');
const TEAM_MAP = path.join(MAPPING_DIR, 'team', 'team.otrace-map.json');
const WRONG_MAP = path.join(MAPPING_DIR, 'wrong.otrace-map.json');

async function api(): Promise<OtraceApi> {
  const ext = vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!;
  const a = await ext.activate();
  await a.mappings.ready;
  return a;
}

const lanesOf = (t: { events: { agent: string }[] }) => [...new Set(t.events.map((e) => e.agent))];
const setting = (value: Record<string, string> | undefined) => vscode.workspace.getConfiguration('otrace').update('mappings', value, vscode.ConfigurationTarget.Global);

describe('mapping files in the editor', function () {
  this.timeout(90_000);
  afterEach(async () => {
    await setting(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a workspace *.otrace-map.json opens an in-house JSON Lines log with lanes and edges (graph and Outline)', async () => {
    const { sessions } = await api();
    const doc = await vscode.workspace.openTextDocument(CREW);
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    const snap = await untilValue('the session of crew.runlog.jsonl', () => sessions.forDocument(doc), (s) => !!s);
    assert.equal(snap!.format, 'mapping:crew-runlog');
    assert.equal(snap!.mappingPath, path.join(MAPPING_DIR, 'crew.otrace-map.json'));
    const trace = (await sessions.inspect(doc.uri))!;
    // Expected from the raw lines: 7 records, the heartbeat has no otrace type; reply_to + after are edges.
    const raw = fs.readFileSync(CREW, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const kept = raw.filter((r) => r.ev !== 'heartbeat');
    assert.deepEqual(trace.events.map((e) => e.id), kept.map((r) => r.ev_id));
    assert.deepEqual(lanesOf(trace), ['planner', 'researcher']);
    const edges = kept.flatMap((r) => [...(r.reply_to ? [r.reply_to] : []), ...(r.after ?? [])].map((s: string) => `${s}->${r.ev_id}`)).sort();
    assert.deepEqual(trace.edges.map((e) => `${e.src}->${e.dst}`).sort(), edges);
    const symbols = (await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', doc.uri)) ?? [];
    assert.deepEqual(symbols.filter((s) => s.detail === 'agent').map((s) => [s.name, s.children.length]), [['planner', 3], ['researcher', 3]]);
    // The graph beside it: a node per event, a lane per agent, edges drawn.
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    const graph = await evalInWebview<{ nodes: number; lanes: string[]; edges: number }>(
      `() => ({ nodes: globalThis.__otrace.graph.totalEvents, lanes: [...document.querySelectorAll('#lanes .lane .lane-name')].map((l) => l.textContent), edges: globalThis.__otrace.cy.edges().length })`,
      { selector: 'body[data-state="ready"][data-title="crew.runlog.jsonl"]', timeoutMs: 40_000 },
    );
    assert.equal(graph.nodes, kept.length);
    assert.deepEqual(graph.lanes, ['planner', 'researcher']);
    assert.ok(graph.edges >= edges.length - 1, `edges drawn: ${graph.edges}`);
  });

  it('a wrong workspace mapping gets positioned diagnostics in the mapping file', async () => {
    await api();
    const text = fs.readFileSync(WRONG_MAP, 'utf8');
    const at = (needle: string): [number, number] => {
      const before = text.slice(0, text.indexOf(needle)).split('\n');
      return [before.length - 1, before[before.length - 1].length];
    };
    const diags = await untilValue('diagnostics on wrong.otrace-map.json', () => vscode.languages.getDiagnostics(vscode.Uri.file(WRONG_MAP)).filter((d) => d.source === 'otrace mapping'), (d) => d.length > 0);
    const seen = diags.map((d) => [d.severity, d.range.start.line, d.range.start.character, d.message.split(/[;:,(]/)[0]]);
    for (const [needle, severity, start] of [
      ['"agnet"', vscode.DiagnosticSeverity.Warning, 'unknown mapping field "agnet"'],
      ['"body..text"', vscode.DiagnosticSeverity.Error, '"content" must be a dotted path'],
      ['"minutes"', vscode.DiagnosticSeverity.Error, '"time.unit" must be one of s'],
      ['"tool_invocation"', vscode.DiagnosticSeverity.Error, '"call" maps to "tool_invocation"'],
    ] as const) {
      const [line, character] = at(needle);
      assert.ok(
        seen.some((s) => s[0] === severity && s[1] === line && s[2] === character && String(s[3]).startsWith(start)),
        `${start} at ${line + 1}:${character + 1}; got ${JSON.stringify(seen)}`,
      );
    }
  });

  it('the otrace.mappings setting names a mapping for a glob; changing the setting or the mapping file on disk reads the trace again', async () => {
    const { sessions } = await api();
    const doc = await vscode.workspace.openTextDocument(TEAM);
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    assert.equal(await sessions.forDocument(doc), undefined, 'no built-in format and no workspace mapping reads team-log.jsonl');
    // The setting names a broken mapping: the trace says why, the mapping file shows where.
    await setting({ '**/team-log.jsonl': 'mapping/wrong.otrace-map.json' });
    const broken = await untilValue('a session for team-log.jsonl (broken mapping)', () => sessions.peek(doc.uri), (s) => !!s);
    assert.match((await sessions.inspect(doc.uri))!.problems[0], /the mapping .*wrong\.otrace-map\.json \(named in otrace\.mappings for "\*\*\/team-log\.jsonl"\) cannot be used: .*; read with the built-in formats instead/);
    assert.equal(broken!.counts.events, 0);
    // The right mapping: lanes and edges, from the raw lines.
    await setting({ '**/team-log.jsonl': 'mapping/team/team.otrace-map.json' });
    await untilValue('team-log.jsonl read with team.otrace-map.json', () => sessions.peek(doc.uri), (s) => s?.mappingPath === TEAM_MAP);
    const team = (await sessions.inspect(doc.uri))!;
    const raw = fs.readFileSync(TEAM, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(team.events.map((e) => [e.id, e.agent]), raw.map((r) => [r.uid, r.actor.name]));
    assert.deepEqual(lanesOf(team), ['lead', 'analyst', 'writer']);
    assert.deepEqual(team.edges.map((e) => `${e.src}->${e.dst}`).sort(), raw.filter((r) => r.re).map((r) => `${r.re}->${r.uid}`).sort());
    assert.equal(team.events.find((e) => e.id === 't2')!.type, 'delegate');
    // The mapping file changes on disk (a copy outside the workspace, named by its absolute path): the trace is read again.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-map-'));
    const copy = path.join(dir, 'team.otrace-map.json');
    fs.writeFileSync(copy, fs.readFileSync(TEAM_MAP, 'utf8'));
    try {
      await setting({ '**/team-log.jsonl': copy });
      await untilValue('team-log.jsonl read with the copy', () => sessions.peek(doc.uri)?.mappingPath, (p) => p === copy);
      fs.writeFileSync(copy, fs.readFileSync(TEAM_MAP, 'utf8').replace('"ask": "delegate"', '"ask": "message"'));
      await untilValue('t2 read again as a message', async () => (await sessions.inspect(doc.uri))?.events.find((e) => e.id === 't2')?.type, (t) => t === 'message');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('mapping files of a hostile workspace', function () {
  this.timeout(120_000);
  const WS = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const HERE = path.join(MAPPING_DIR, `tmp-hostile-${process.pid}`);
  let sibling = '';
  let settingsFolderExisted = true;
  before(() => {
    settingsFolderExisted = fs.existsSync(path.join(WS, '.vscode'));
    // A folder beside the workspace with a mapping that would read every *.runlog.jsonl and *.hostile-*.jsonl, a secret and a trace.
    sibling = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-sibling-')));
    const crew = JSON.parse(fs.readFileSync(path.join(MAPPING_DIR, 'crew.otrace-map.json'), 'utf8'));
    fs.writeFileSync(path.join(sibling, 'secret.otrace-map.json'), JSON.stringify({ ...crew, $schema: undefined, name: 'sibling-secret', files: { glob: '*.jsonl' } }));
    fs.writeFileSync(path.join(sibling, 'secret.txt'), 'password=hunter2\n');
    fs.copyFileSync(CREW, path.join(sibling, 'outside.runlog.jsonl'));
    // In the workspace: links out of it, and traces the sibling's mapping would read.
    fs.mkdirSync(HERE, { recursive: true });
    fs.symlinkSync(path.join(sibling, 'secret.otrace-map.json'), path.join(HERE, 'linked.otrace-map.json'));
    fs.symlinkSync('/etc/passwd', path.join(HERE, 'passwd.otrace-map.json'));
    fs.symlinkSync(sibling, path.join(HERE, 'door'));
    fs.symlinkSync(path.join(sibling, 'outside.runlog.jsonl'), path.join(HERE, 'linked.runlog.jsonl'));
    for (const name of ['a', 'b', 'c', 'd', 'e']) fs.copyFileSync(CREW, path.join(HERE, `x.hostile-${name}.jsonl`));
  });
  after(async () => {
    await vscode.workspace.getConfiguration('otrace').update('mappings', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(HERE, { recursive: true, force: true });
    fs.rmSync(sibling, { recursive: true, force: true });
    if (!settingsFolderExisted) fs.rmSync(path.join(WS, '.vscode'), { recursive: true, force: true });
    await (await api()).mappings.refresh();
  });

  it('reads nothing outside the workspace: no Problems row names an outside file, no trace is read with an outside mapping, no outside trace with a workspace mapping', async () => {
    const { mappings, sessions } = await api();
    const rel = path.relative(WS, path.join(sibling, 'secret.otrace-map.json'));
    await vscode.workspace.getConfiguration('otrace').update(
      'mappings',
      {
        '**/*.hostile-a.jsonl': '/etc/passwd',
        '**/*.hostile-b.jsonl': '/proc/self/environ',
        '**/*.hostile-c.jsonl': '~/.bashrc',
        '**/*.hostile-d.jsonl': path.join(sibling, 'secret.otrace-map.json'),
        '**/*.hostile-e.jsonl': rel,
      },
      vscode.ConfigurationTarget.Workspace,
    );
    await mappings.refresh();
    const outsidePaths = ['/etc/passwd', '/proc/self/environ', path.join(os.homedir(), '.bashrc'), sibling];
    const names = (text: string) => outsidePaths.some((p) => text.includes(p)) || /hunter2|passwd:|root:x:/.test(text);
    // The mapping sources in use: none outside the workspace.
    const real = (p: string) => {
      try {
        return fs.realpathSync(p);
      } catch {
        return p;
      }
    };
    const used = mappings.sources().map((s) => real(s.path));
    assert.deepEqual(used.filter((p) => path.relative(WS, p).startsWith('..')), [], `mapping sources outside the workspace: ${JSON.stringify(used)}`);
    // Problems: no row on an outside file and none naming one; the links get one warning each, no parse error of what they point at.
    const rows = vscode.languages.getDiagnostics().filter(([, ds]) => ds.length);
    assert.deepEqual(rows.filter(([uri, ds]) => names(uri.fsPath) || ds.some((d) => names(d.message))).map(([uri, ds]) => [uri.fsPath, ds.map((d) => d.message)]), []);
    for (const link of ['linked.otrace-map.json', 'passwd.otrace-map.json']) {
      const ds = vscode.languages.getDiagnostics(vscode.Uri.file(path.join(HERE, link))).map((d) => d.message);
      assert.deepEqual(ds, ['this mapping file is a symbolic link to a file outside the workspace, so it is not read: a workspace\'s mapping files stay inside it'], link);
    }
    // Traces in the workspace the outside mappings were named for: none is read with them (crew lines are no built-in format).
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      const doc = await vscode.workspace.openTextDocument(path.join(HERE, `x.hostile-${name}.jsonl`));
      const s = await sessions.forDocument(doc);
      assert.equal(s?.mappingPath, undefined, `x.hostile-${name}.jsonl read with ${s?.mappingPath}`);
      assert.equal(s?.counts.events ?? 0, 0, `x.hostile-${name}.jsonl`);
    }
    // Traces outside the workspace (in the sibling, through a linked file, through a linked folder): the workspace's crew mapping does not read them.
    for (const file of [path.join(sibling, 'outside.runlog.jsonl'), path.join(HERE, 'linked.runlog.jsonl'), path.join(HERE, 'door', 'outside.runlog.jsonl')]) {
      const doc = await vscode.workspace.openTextDocument(file);
      const s = await sessions.forDocument(doc);
      assert.equal(s?.mappingPath, undefined, `${file} read with ${s?.mappingPath}`);
    }
    // The workspace's own mapping still reads the workspace's trace.
    const inside = await sessions.forDocument(await vscode.workspace.openTextDocument(CREW));
    assert.equal(inside?.mappingPath, path.join(MAPPING_DIR, 'crew.otrace-map.json'));
  });
});
