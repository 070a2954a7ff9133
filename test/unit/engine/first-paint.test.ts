/**
 * What the first paint of a graph rests on: the host's first window (the whole time axis at Fit)
 * is the window the webview's Fit would ask for, the webview bundle inlined into its HTML, and the
 * graph area's size kept for the next panel.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fitScale, fitWindowRequest, PAD, PAD_RIGHT } from '../../../src/shared/fit';
import { keepGraphSizeIn, lastGraphSize, rememberGraphSize } from '../../../src/host/panel/graph-size';
import { bucketWidth } from '../../../src/shared/axis';
import { webviewAssets } from '../../../src/host/panel/webview-assets';
import { graphOverview, graphWindow } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { readTraceJsonl } from '../../../src/trace/read';

/** A trace of `n` events, one per second: an orchestrator and 4 workers. */
function trace(n: number) {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: i % 10 ? 'tool_call' : 'message', agent: i % 10 ? `w${i % 4}` : 'orch', tool: 'search' }));
  return makeSnapshot('t', 1, 't.otrace.jsonl', readTraceJsonl(`${lines.join('\n')}\n`));
}

test('the first window covers the whole time axis at the bucket width the webview\'s Fit uses', () => {
  for (const [n, width] of [[35, 500], [3_000, 520], [30_000, 1200]]) {
    const snapshot = trace(n);
    const overview = graphOverview(snapshot, 't');
    const request = fitWindowRequest(overview, width);
    const win = graphWindow(snapshot, request);
    // The webview's loader asks again unless the window holds [0, span] at the bucket of its scale.
    assert.ok(win.from <= 0 && win.to >= overview.axis.span, `${n} events: [${win.from}, ${win.to}] holds [0, ${overview.axis.span}]`);
    assert.equal(win.bucket, bucketWidth(fitScale(width, overview.axis.span)));
    assert.equal(win.stamp, overview.stamp);
    assert.equal(win.mode, 'time');
    // At Fit the axis fills the width between the paddings.
    assert.ok(Math.abs(request.scale * overview.axis.span - (width - PAD - PAD_RIGHT)) < 1e-6);
    const drawn = win.nodes.length + win.runs.reduce((s, r) => s + r.count, 0);
    assert.ok(drawn > 0 && drawn <= n, `${n} events: ${drawn} drawn or in runs`);
  }
});

test('the webview bundle is inlined as it is, its source map found through the webview', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-assets-'));
  try {
    fs.writeFileSync(path.join(dir, 'webview.js'), 'console.log("a</p>");\n//# sourceMappingURL=webview.js.map\n');
    fs.writeFileSync(path.join(dir, 'webview.css'), 'body{color:red}\n/*# sourceMappingURL=webview.css.map */\n');
    const url = (file: string) => `https://res.example/dist/${file}`;
    const assets = webviewAssets(dir, url);
    assert.ok(assets);
    assert.match(assets.script, /^console\.log\("a<\/p>"\);\n\/\/# sourceMappingURL=https:\/\/res\.example\/dist\/webview\.js\.map\n$/);
    assert.match(assets.style, /\/\*# sourceMappingURL=https:\/\/res\.example\/dist\/webview\.css\.map \*\//);

    // Rebuilt (watch mode): read again.
    fs.writeFileSync(path.join(dir, 'webview.js'), 'let b = 2;\n');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(dir, 'webview.js'), later, later);
    assert.equal(webviewAssets(dir, url)?.script, 'let b = 2;\n');

    // Text that would close the element early: not inlined (the HTML loads the files instead).
    fs.writeFileSync(path.join(dir, 'webview.js'), 'let s = "</script><script>alert(1)";\n');
    fs.utimesSync(path.join(dir, 'webview.js'), new Date(later.getTime() + 5_000), new Date(later.getTime() + 5_000));
    assert.equal(webviewAssets(dir, url), undefined);
    assert.equal(webviewAssets(path.join(dir, 'missing'), url), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the graph area\'s size is kept across starts; implausible sizes are ignored', () => {
  const stored = new Map<string, unknown>();
  let writes = 0;
  const memento = {
    keys: () => [...stored.keys()],
    get: <T>(key: string) => stored.get(key) as T,
    update: async (key: string, value: unknown) => {
      writes++;
      stored.set(key, value);
    },
  };
  keepGraphSizeIn(memento);
  assert.deepEqual(lastGraphSize(), { width: 600, height: 500 }, 'a default before any graph told its size');
  rememberGraphSize({ width: 812.4, height: 640 });
  assert.deepEqual(lastGraphSize(), { width: 812, height: 640 });
  rememberGraphSize({ width: 812, height: 640 });
  assert.equal(writes, 1, 'written only when it changed');
  for (const bad of [undefined, { width: 0, height: 600 }, { width: Number.NaN, height: 600 }, { width: '800', height: 600 }, { width: 1e6, height: 600 }]) rememberGraphSize(bad);
  assert.deepEqual(lastGraphSize(), { width: 812, height: 640 });
  // The next start reads it back.
  keepGraphSizeIn(memento);
  assert.deepEqual(lastGraphSize(), { width: 812, height: 640 });
});
