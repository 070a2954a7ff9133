// The project's test command. Builds, type-checks, runs the unit tests (node:test) and then the
// integration tests in a real VS Code, and prints a plain last line `N passed, N failed`.
//   node scripts/test.mjs          everything
//   node scripts/test.mjs unit     build + typecheck + lint + unit tests only
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const only = process.argv[2];
let passed = 0;
let failed = 0;

function run(label, cmd, args, env = process.env) {
  process.stdout.write(`\n== ${label}: ${cmd} ${args.join(' ')}\n`);
  return spawnSync(cmd, args, { stdio: 'inherit', env });
}

/** Runs a command, passing its output through as it comes (the first run installs VS Code for minutes); keeps the last 4 KB. */
function streamed(label, cmd, args) {
  process.stdout.write(`\n== ${label}: ${cmd} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk).slice(-4096);
    });
    child.on('close', (status) => resolve({ status, tail }));
  });
}

/** Runs a node script that ends with its own `N passed, N failed` line, and adds its counts. */
async function counted(label, script, args = []) {
  const r = await streamed(label, process.execPath, [script, ...args]);
  const m = /(\d+) passed, (\d+) failed\s*$/.exec(r.tail.trim());
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  if (!m || (r.status !== 0 && Number(m[2]) === 0)) {
    failed++;
    process.stdout.write(`✖ ${label} failed (exit ${r.status})\n`);
  }
}

/** A step that is one check of its own (build, typecheck). */
function step(label, cmd, args) {
  const r = run(label, cmd, args);
  if (r.status === 0) passed++;
  else {
    failed++;
    process.stdout.write(`✖ ${label} failed (exit ${r.status})\n`);
  }
  return r.status === 0;
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return testFiles(p);
    return name.endsWith('.test.ts') ? [p] : [];
  }).sort();
}

const built = step('build', process.execPath, ['esbuild.mjs']);
step('typecheck', process.execPath, ['node_modules/typescript/bin/tsc', '-b']);
// eslint.config.mjs; the cache (in node_modules/.cache) keeps a re-run to the files that changed
step('lint', process.execPath, ['node_modules/eslint/bin/eslint.js', '--cache', '--cache-strategy', 'content', '--cache-location', 'node_modules/.cache/eslint/', '.']);

const scratch = mkdtempSync(join(tmpdir(), 'otrace-test-'));
const countsFile = join(scratch, 'counts.json');
// The unit tests' temporary files go under one folder of this run (os.tmpdir() reads TMPDIR), removed after it.
const unitTmp = mkdtempSync(join(scratch, 'tmp-'));
const unit = run('unit tests', process.execPath, [
  '--import', 'tsx', '--test', '--test-concurrency=2',
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/count-reporter.mjs', `--test-reporter-destination=${countsFile}`,
  ...testFiles('test/unit'),
], { ...process.env, TMPDIR: unitTmp });
try {
  const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  passed += counts.passed;
  failed += counts.failed;
} catch {
  failed++;
  process.stdout.write(`✖ unit tests did not report (exit ${unit.status})\n`);
}
rmSync(scratch, { recursive: true, force: true });

if (only !== 'unit' && !existsSync('scripts/vscode/run-integration.mjs')) {
  process.stdout.write('\n(no integration harness in this checkout: integration tests not run)\n');
} else if (only !== 'unit') {
  if (!built) {
    failed++;
    process.stdout.write('✖ integration tests skipped: the build failed\n');
  } else {
    await counted('integration tests (real VS Code)', 'scripts/vscode/run-integration.mjs');
    // The tests that need Restricted Mode (skipped above, where workspace trust is off): a VS Code of their own, the folder not trusted.
    await counted('integration tests in Restricted Mode (real VS Code)', 'scripts/vscode/run-integration.mjs', ['--untrusted', '--grep', 'Restricted Mode']);
    // The VSIX as users install it: packaged, installed with --install-extension, opened.
    await counted('installed VSIX smoke test', 'scripts/vscode/vsix-smoke.mjs');
  }
}

process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 ? 1 : 0;
