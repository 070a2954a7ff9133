/**
 * Restricted Mode in a real VS Code: run by `node scripts/vscode/run-integration.mjs --untrusted
 * --grep 'Restricted Mode'` (workspace trust on, test/fixtures not trusted); skipped in the usual
 * run, where trust is off. The workspace's mapping files (test/fixtures/mapping/*.otrace-map.json)
 * and its values of otrace.mappings are not used; the user's value is.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const MAPPING_DIR = path.join(ROOT, 'test', 'fixtures', 'mapping');
const CREW = path.join(MAPPING_DIR, 'crew.runlog.jsonl');
const TEAM = path.join(MAPPING_DIR, 'team', 'team-log.jsonl');
const TEAM_MAP = path.join(MAPPING_DIR, 'team', 'team.otrace-map.json');

describe('Restricted Mode', function () {
  this.timeout(90_000);
  before(function () {
    if (process.env.OTRACE_TEST_UNTRUSTED !== '1') this.skip();
  });
  after(async () => {
    await vscode.workspace.getConfiguration('otrace').update('mappings', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('uses no workspace mapping file and no workspace value of otrace.mappings; the user value still applies', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the run must open the folder in Restricted Mode');
    const ext = vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!;
    const { mappings, sessions } = await ext.activate();
    await mappings.ready;
    // The workspace's own value, as a cloned repository would bring it (written as a file: VS Code
    // does not write a restricted setting to an untrusted workspace).
    const settingsDir = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode');
    const existed = fs.existsSync(settingsDir);
    fs.mkdirSync(settingsDir, { recursive: true });
    // A setting that is not restricted, in the same file, tells when VS Code has read the file.
    fs.writeFileSync(path.join(settingsDir, 'settings.json'), JSON.stringify({ 'otrace.mappings': { '**/team-log.jsonl': 'mapping/team/team.otrace-map.json', '**/*.runlog.jsonl': 'mapping/crew.otrace-map.json' }, 'otrace.detectByContent': false }));
    try {
      await until('VS Code to read the workspace settings file', () => vscode.workspace.getConfiguration('otrace').inspect('detectByContent')?.workspaceValue === false);
      // The user's value for the crew log: read with it (the workspace's value for the same glob is not used).
      await vscode.workspace.getConfiguration('otrace').update('mappings', { '**/crew.runlog.jsonl': TEAM_MAP }, vscode.ConfigurationTarget.Global);
      await mappings.refresh();
      const sources = mappings.sources();
      assert.deepEqual(sources.map((s) => [s.origin, s.path, s.glob]), [['setting', TEAM_MAP, '**/crew.runlog.jsonl']]);
      // No workspace mapping file: no Problems row from otrace on any of them (wrong.otrace-map.json has errors when read).
      assert.deepEqual(vscode.languages.getDiagnostics(vscode.Uri.file(path.join(MAPPING_DIR, 'wrong.otrace-map.json'))).filter((d) => d.source === 'otrace mapping'), []);
      // The team log: only the workspace's value names a mapping for it, so nothing reads it.
      const team = await vscode.workspace.openTextDocument(TEAM);
      assert.equal(await sessions.forDocument(team), undefined);
      // The crew log: read with the user's mapping, not the workspace's crew.otrace-map.json (by its files.glob or by the workspace's value).
      const crew = await vscode.workspace.openTextDocument(CREW);
      const s = await sessions.forDocument(crew);
      assert.equal(s?.mappingPath, TEAM_MAP);
    } finally {
      if (existed) fs.rmSync(path.join(settingsDir, 'settings.json'), { force: true });
      else fs.rmSync(settingsDir, { recursive: true, force: true });
    }
  });
});
