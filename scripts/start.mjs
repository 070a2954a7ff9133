#!/usr/bin/env node
// `npm start`: build, then open samples/ in VS Code with the extension loaded, the demo trace open
// and its graph beside it. A desktop `code` on PATH is used when there is one (set
// OTRACE_USE_CODE_SERVER=1 to skip it); otherwise code-server (VS Code 1.139.1, installed once into
// .vscode-test/) starts on 127.0.0.1 and the URL to open is printed. Ctrl-C stops it cleanly.
// OTRACE_PORT picks the port (default: a free one).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.join(ROOT, 'samples');
const DEMO = path.join(SAMPLES, 'demo.otrace.jsonl');
// The extension opens this trace and its graph when it activates (see src/extension.ts).
const env = { ...process.env, OTRACE_START_TRACE: DEMO };

const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const hasCode = !process.env.OTRACE_USE_CODE_SERVER && spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasCode) {
  console.log('Opening samples/ in your VS Code (desktop `code`) with the extension under development...');
  const child = spawn('code', ['--new-window', `--extensionDevelopmentPath=${ROOT}`, SAMPLES, DEMO], { env, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const { startServer } = await import('./vscode/server.mjs');
  const { TEST_DIR } = await import('./vscode/install.mjs');
  console.log('No desktop `code` on PATH: starting code-server (VS Code 1.139.1) on 127.0.0.1 ...');
  const userDataDir = path.join(TEST_DIR, 'start-user-data');
  writeDefaultSettings(userDataDir);
  const server = await startServer({
    folder: SAMPLES,
    port: process.env.OTRACE_PORT ? Number(process.env.OTRACE_PORT) : undefined,
    env,
    // Its own profile, apart from the tests' (both may run at once).
    userDataDir,
    extensionsDir: path.join(TEST_DIR, 'start-extensions'),
  });
  const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${ROOT}`]];
  const url = `${server.url}?folder=${encodeURIComponent(SAMPLES)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  console.log(`\notrace is running. Open this URL in your browser:\n\n  ${url}\n\nCtrl-C stops VS Code.`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping VS Code...');
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

/** A first-run profile that shows the trace, not the welcome page and chat (kept once the user changes it). */
function writeDefaultSettings(userDataDir) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  if (fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'workbench.tips.enabled': false,
  }, null, 2) + '\n');
}
