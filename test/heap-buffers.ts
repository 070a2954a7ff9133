/**
 * The check behind src/engine/heap-accounting.ts, shared by the unit test (on a Node that has the
 * flag) and the integration test (on the test editor's Node, where the extension's engine runs):
 * a child process keeps a million small objects (a trace's events), then allocates 1 GB of typed
 * arrays it keeps (an analysis's arena), 4 MB at a time with a little work between, and counts the
 * mark-compacts that run while it allocates.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/** The child's script: `own` as its last argument calls countBuffersInHeapLimit() first; prints "marks events buffers". */
function keptBuffersScript(module: string): string {
  return `
const { PerformanceObserver, constants } = require('node:perf_hooks');
if (process.argv.at(-1) === 'own') require(${JSON.stringify(module)}).countBuffersInHeapLimit();
let marks = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) marks++; }).observe({ entryTypes: ['gc'] });
const events = [];
for (let i = 0; i < 1e6; i++) events.push({ i, id: 'e' + i });
const buffers = [];
let k = 0;
const step = () => {
  if (k === 0) marks = 0;
  if (k++ < 256) {
    const b = new Float64Array(1 << 19);
    for (let j = 0; j < b.length; j += 512) b[j] = j;
    buffers.push(b);
    let s = 0;
    for (let j = 0; j < 20000; j++) s += ({ j }).j;
    setImmediate(step);
    return;
  }
  setTimeout(() => process.stdout.write(String(marks) + ' ' + events.length + ' ' + buffers.length), 100);
};
setTimeout(step, 50);
`;
}

/**
 * Mark-compacts counted by the child on `node` (a Node binary), run from the project's folder `root`
 * with tsx; `own`: the child calls the module's countBuffersInHeapLimit() first.
 * @throws when the child fails or does not keep what it should.
 */
export function markCompactsKeepingBuffers(node: string, root: string, own: boolean): number {
  const module = path.join(root, 'src', 'engine', 'heap-accounting.ts');
  const r = spawnSync(node, ['--import', 'tsx', '-e', keptBuffersScript(module), own ? 'own' : 'shared'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the child exited ${r.status}: ${r.stderr}`);
  const [marks, events, buffers] = r.stdout.trim().split(' ').map(Number);
  if (events !== 1e6 || buffers !== 256) throw new Error(`the child kept ${events} events and ${buffers} buffers`);
  return marks;
}

/** What both tests assert: V8's default runs one for about every 64 MB (6-10 seen), the module's flag at most half as many (1-3 seen). */
export function assertFewerMarkCompacts(before: number, own: number, ok: (value: boolean, message: string) => void): void {
  ok(before >= 4, `mark-compacts without the flag: ${before}`);
  ok(own * 2 < before, `mark-compacts with it: ${own} (without: ${before})`);
}
