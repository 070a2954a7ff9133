// `npm run bench -- NAME`: runs bench/run.ts on the Node the extension's engine runs on. The engine
// runs in the editor's Node (VS Code's Electron: Node 22; the test code-server of
// scripts/vscode/install.mjs: Node 24), not in the Node that runs npm: measured on an older one, a
// followed trace's first appends took twice as long (its compilers warm up later). The test
// editor's Node when it is installed (npm test installs it), else this one; OTRACE_BENCH_NODE=system
// runs on this one, OTRACE_BENCH_NODE=PATH on another. Each bench's table says which Node ran it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { paths, ROOT } from './vscode/install.mjs';

const chosen = process.env.OTRACE_BENCH_NODE;
const editors = paths().nodeBin;
const node = chosen === 'system' ? process.execPath : chosen || (existsSync(editors) ? editors : process.execPath);
const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const run = spawnSync(node, [tsx, path.join(ROOT, 'bench', 'run.ts'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: ROOT });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
