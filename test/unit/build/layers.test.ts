/**
 * The layer rules are the compiler's: each layer (src/shared, src/trace, src/analysis, src/engine,
 * src/host, src/cli, webview) is a TypeScript project that lists the layers it may import as
 * references, and tsconfig.base.json maps `vscode` to an empty module outside the host. Here the
 * real tsconfig files are copied beside one small file per layer, imports that break the rules are
 * planted, and `tsc -b` must reject each of them (and nothing else).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(__dirname, '..', '..', '..');
const LAYERS = ['src/shared', 'src/trace', 'src/analysis', 'src/engine', 'src/host', 'src/cli', 'webview'];

/** Planted files: path, text, and the compiler error it must cause. */
const PLANTED: { file: string; text: string; error: RegExp }[] = [
  { file: 'src/shared/planted-vscode.ts', text: "import { window } from 'vscode';\nexport const w = window;\n", error: /TS2305: Module '"vscode"' has no exported member 'window'/ },
  { file: 'src/shared/planted-dom.ts', text: 'export const body = document.body;\n', error: /TS2584: Cannot find name 'document'/ },
  { file: 'src/shared/planted-node.ts', text: "import * as fs from 'node:fs';\nexport const read = fs.readFileSync;\n", error: /TS2307: Cannot find module 'node:fs'/ },
  { file: 'src/engine/planted-host.ts', text: "import { host } from '../host/layer';\nexport const h = host;\n", error: /TS6307: File '[^']*src\/host\/layer\.ts' is not listed within the file list of project/ },
  { file: 'src/engine/planted-vscode.ts', text: "import type { Uri } from 'vscode';\nexport type U = Uri;\n", error: /TS2305: Module '"vscode"' has no exported member 'Uri'/ },
  { file: 'src/trace/planted-analysis.ts', text: "import { analysis } from '../analysis/layer';\nexport const a = analysis;\n", error: /TS6307: File '[^']*src\/analysis\/layer\.ts' is not listed within the file list of project/ },
  { file: 'webview/planted-engine.ts', text: "import { engine } from '../src/engine/layer';\nexport const e = engine;\n", error: /TS6307: File '[^']*src\/engine\/layer\.ts' is not listed within the file list of project/ },
  { file: 'webview/planted-node.ts', text: "import * as fs from 'node:fs';\nexport const read = fs.readFileSync;\n", error: /TS2307: Cannot find module 'node:fs'/ },
];

function layerCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-layers-'));
  fs.copyFileSync(path.join(ROOT, 'tsconfig.base.json'), path.join(dir, 'tsconfig.base.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.mkdirSync(path.join(dir, 'src', 'shared'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'src/shared/vscode-is-host-only.d.ts'), path.join(dir, 'src/shared/vscode-is-host-only.d.ts'));
  for (const layer of LAYERS) {
    fs.mkdirSync(path.join(dir, layer), { recursive: true });
    fs.copyFileSync(path.join(ROOT, layer, 'tsconfig.json'), path.join(dir, layer, 'tsconfig.json'));
    fs.writeFileSync(path.join(dir, layer, 'layer.ts'), `export const ${path.basename(layer)} = '${layer}';\n`);
  }
  // What each layer may import, used the allowed way: these must compile.
  fs.writeFileSync(path.join(dir, 'src/host/uses.ts'), "import { window } from 'vscode';\nimport { engine } from '../engine/layer';\nexport const uses = [window, engine];\n");
  // imports of the copy's own layer stubs (paths inside the temporary copy)
  const from = (layer: string, to: string) => `${path.posix.relative(layer, to)}/layer`;
  fs.writeFileSync(path.join(dir, 'src/engine/uses.ts'), `import * as fs from 'node:fs';\nimport { analysis } from '${from('src/engine', 'src/analysis')}';\nimport { trace } from '${from('src/engine', 'src/trace')}';\nimport { shared } from '${from('src/engine', 'src/shared')}';\nexport const uses = [fs, analysis, trace, shared];\n`);
  fs.writeFileSync(path.join(dir, 'webview/uses.ts'), "import { shared } from '../src/shared/layer';\nexport const uses = [shared, document.body];\n");
  return dir;
}

function build(dir: string): { status: number | null; out: string } {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-b', ...LAYERS.map((l) => path.join(dir, l)), '--pretty', 'false'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the layer tsconfigs compile each layer with what it may import', () => {
  const dir = layerCopy();
  try {
    const r = build(dir);
    assert.equal(r.status, 0, r.out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a planted import of vscode, the DOM or Node in shared/, of host/ or vscode in engine/, of analysis/ in trace/, of engine/ or Node in the webview is a compile error', () => {
  const dir = layerCopy();
  try {
    for (const p of PLANTED) fs.writeFileSync(path.join(dir, p.file), p.text);
    const r = build(dir);
    assert.notEqual(r.status, 0, 'tsc -b accepted the planted imports');
    const errors = r.out.split('\n').filter((l) => /error TS\d+/.test(l));
    for (const p of PLANTED) {
      const mine = errors.filter((l) => l.includes(p.file));
      assert.ok(mine.some((l) => p.error.test(l)), `${p.file}: expected ${p.error}, got:\n${mine.join('\n') || '(no error)'}`);
    }
    const elsewhere = errors.filter((l) => !PLANTED.some((p) => l.includes(p.file)));
    assert.deepEqual(elsewhere, [], 'errors outside the planted files');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
