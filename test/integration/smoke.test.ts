/**
 * Smoke test: the extension is installed in the test VS Code, activates, and registers the
 * commands it contributes. Kept generic: it reads the contributed commands from package.json.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'otrace.otrace';

describe('smoke', () => {
  it('finds the extension', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  });

  it('activates the extension', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers the commands it contributes', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    const contributed: string[] = (ext.packageJSON?.contributes?.commands ?? []).map((c: { command: string }) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });
});
