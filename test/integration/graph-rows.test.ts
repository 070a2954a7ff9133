/**
 * Lanes that use the space (issue 26): a one-agent Codex rollout was one 14 px row of run bars with
 * ~85 % of the graph empty, and a rollout of many turns piled its turn ends up as overlapping stop
 * octagons. Now the lane grows rows (turns, messages, tool calls) that share the panel's height, the
 * lane's name sits at its top row, and turn ends never overlap at Fit while the stop key still
 * reaches every one. Measured from the element boxes the webview draws.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { evalInWebview, testLog } from './bridge';
import { postAsHost, until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const ROLLOUT = path.join(ROOT, 'test', 'fixtures', 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const frameOf = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Read in the webview: the graph area, the drawn elements' boxes by row, the stops' boxes, the lane names' boxes (graph coordinates). */
const READ = `() => {
  const { cy, view, graph } = globalThis.__otrace;
  const box = (n) => { const b = n.renderedBoundingBox({ includeLabels: false }); return { x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 }; };
  const drawn = cy.nodes('.event, .run').filter((n) => n.visible());
  const stage = document.getElementById('graph').getBoundingClientRect();
  return {
    height: cy.height(),
    rowHeight: view.rowHeight ?? view.laneHeight,
    lanes: graph.lanes.map((l, i) => ({ name: l.name, rows: l.rows ?? 1, box: typeof view.laneBox === 'function' ? view.laneBox(i) : undefined })),
    names: [...document.querySelectorAll('#lanes .lane')].map((l) => { const r = l.querySelector('.lane-name').getBoundingClientRect(); return { y1: r.top - stage.top, y2: r.bottom - stage.top }; }),
    elements: drawn.map((n) => box(n)),
    rowsDrawn: [...new Set(drawn.map((n) => Math.round(n.position('y'))))].length,
    pan: cy.pan(),
    stops: cy.nodes('.stop').filter((n) => n.visible()).map((n) => ({ index: n.data('index'), cls: n.classes().join(' '), box: box(n) })),
  };
}`;

interface Read {
  height: number;
  rowHeight: number;
  lanes: { name: string; rows: number; box?: { top: number; height: number } }[];
  names: { y1: number; y2: number }[];
  elements: Box[];
  rowsDrawn: number;
  pan: { x: number; y: number };
  stops: { index: number; cls: string; box: Box }[];
}

const overlap = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

/** Opens a trace and its graph at Fit; returns its webview frame's selector once a window is drawn. */
async function openAtFit(file: string): Promise<string> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
  await vscode.commands.executeCommand('otrace.openGraphToSide');
  const frame = frameOf(file);
  await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
  await vscode.commands.executeCommand('otrace.graph.fit');
  await until('a window drawn at Fit', () => evalInWebview<boolean>(`() => { const w = globalThis.__otrace.windows(); return !w.loading && globalThis.__otrace.cy.nodes('.event, .run').length > 0; }`, { selector: frame }), 30_000);
  return frame;
}

/**
 * The Codex fixture with 33 more turns of a prompt, an answer and a turn end each, 0.3 s apart,
 * after its last record: the crowd of turn ends an unseen rollout of 1,117 events showed.
 */
function manyTurnsRollout(): string {
  const text = fs.readFileSync(ROLLOUT, 'utf8').trimEnd();
  const lines = text.split('\n');
  const lastTime = Date.parse((JSON.parse(lines[lines.length - 1]) as { timestamp: string }).timestamp);
  const at = (ms: number) => new Date(lastTime + ms).toISOString();
  for (let k = 0; k < 33; k++) {
    const t0 = 1000 + k * 300;
    const turn = `turn-extra-${k}`;
    lines.push(JSON.stringify({ timestamp: at(t0), type: 'event_msg', payload: { type: 'task_started', turn_id: turn, model_context_window: 258400, collaboration_mode_kind: 'default' } }));
    lines.push(JSON.stringify({ timestamp: at(t0 + 1), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `next step ${k}` }] } }));
    lines.push(JSON.stringify({ timestamp: at(t0 + 1), type: 'event_msg', payload: { type: 'user_message', message: `next step ${k}`, images: [], local_images: [], text_elements: [] } }));
    lines.push(JSON.stringify({ timestamp: at(t0 + 100), type: 'event_msg', payload: { type: 'agent_message', message: `done ${k}` } }));
    lines.push(JSON.stringify({ timestamp: at(t0 + 101), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `done ${k}` }], phase: 'final_answer' } }));
    lines.push(JSON.stringify({ timestamp: at(t0 + 150), type: 'event_msg', payload: { type: 'task_complete', turn_id: turn, last_agent_message: `done ${k}` } }));
  }
  const file = path.join(os.tmpdir(), `otrace-rows-${process.pid}`, 'rollout-2026-02-23T12-40-23-many-turns.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('lane rows in a real VS Code', function () {
  this.timeout(150_000);
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a one-agent Codex rollout fills the graph: its rows span most of the height, its name at the lane\'s top row', async () => {
    const frame = await openAtFit(ROLLOUT);
    const v = await evalInWebview<Read>(READ, { selector: frame });
    const top = Math.min(...v.elements.map((b) => b.y1));
    const bottom = Math.max(...v.elements.map((b) => b.y2));
    const share = (bottom - top) / v.height;
    testLog(`      Codex rollout: graph ${v.height} px high, ${v.lanes.map((l) => `${l.name}: ${l.rows} rows`).join(', ')} of ${v.rowHeight} px, drawn elements on ${v.rowsDrawn} rows spanning ${Math.round(bottom - top)} px (${Math.round(share * 100)} %)`);
    assert.ok(share > 0.6, `the drawn rows span ${Math.round(share * 100)} % of the graph's height (${Math.round(bottom - top)} of ${v.height} px)`);
    assert.ok(v.rowsDrawn >= 3, `elements on ${v.rowsDrawn} rows`);
    assert.deepEqual(v.lanes.map((l) => l.rows), [3], 'turns, messages, tool calls');
    // The lane's name is at its top row: inside the lane's first row.
    const lane = v.lanes[0].box!;
    const name = v.names[0];
    const laneTop = lane.top + v.pan.y;
    assert.ok(name.y1 >= laneTop - 0.5 && name.y2 <= laneTop + v.rowHeight + 0.5, `the name ${JSON.stringify(name)} is in the lane's top row (${laneTop}..${laneTop + v.rowHeight})`);
  });

  it('a rollout of many short turns: at Fit no two stops overlap; the stop key still reaches every stop', async () => {
    const file = manyTurnsRollout();
    try {
      const frame = await openAtFit(file);
      const v = await evalInWebview<Read>(READ, { selector: frame });
      testLog(`      many turns: ${v.stops.length} stops drawn on their own at Fit (${v.stops.filter((s) => / last-stop|stop-problem/.test(` ${s.cls}`)).length} large)`);
      assert.ok(v.stops.length >= 3, `some stops are drawn: ${v.stops.length}`);
      for (let i = 0; i < v.stops.length; i++)
        for (let j = i + 1; j < v.stops.length; j++) assert.ok(!overlap(v.stops[i].box, v.stops[j].box), `stops ${v.stops[i].index} and ${v.stops[j].index} overlap: ${JSON.stringify(v.stops[i])} ${JSON.stringify(v.stops[j])}`);
      // Every stop is reachable by the stop key: from the first event, Next Stop visits each in time order.
      const stops = await evalInWebview<number[]>(`() => { const o = globalThis.__otrace; const stop = o.graph.kinds.indexOf('stop'); return o.timeline().filter((i) => o.graph.columns.kind[i] === stop); }`, { selector: frame });
      assert.ok(stops.length >= 38, `the rollout's 5 turn ends and the 33 added: ${stops.length}`);
      await vscode.commands.executeCommand('otrace.graph.firstEvent');
      await until('the first event', () => evalInWebview<boolean>(`() => globalThis.__otrace.current() === globalThis.__otrace.timeline()[0]`, { selector: frame }), 10_000);
      for (const [k, s] of stops.entries()) {
        const sent = await evalInWebview<number>('() => globalThis.__otrace.commands()', { selector: frame });
        await vscode.commands.executeCommand('otrace.graph.nextStop');
        // commands and renders: when it fails, whether the command reached the page and whether the page drew the trace again
        const state = () => evalInWebview<{ current: number | null; selected: number | null; commands: number; renders: number }>(`() => ({ current: globalThis.__otrace.current(), selected: globalThis.__otrace.selected(), commands: globalThis.__otrace.commands(), renders: globalThis.__otrace.renders() })`, { selector: frame });
        await until(`the stop ${s} to be current and drawn on its own`, async () => {
          const now = await state();
          return now.current === s && now.selected === s;
        }, 30_000).catch(async (e: Error) => {
          throw new Error(`${e.message} (stop ${k + 1} of ${stops.length}; ${sent} commands run before it): ${JSON.stringify(await state())}`);
        });
      }
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('an event selected from the editor is brought into view with no band of nothing above the lanes, and not under the details drawer', async () => {
    // 60 agents taking turns: their lanes fill the height at Fit, the first lane's events a few px under the axis
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-band-'));
    const file = path.join(dir, 'many-agents.otrace.jsonl');
    const events = Array.from({ length: 180 }, (_, k) => JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: `agent_${String(k % 60).padStart(2, '0')}`, content: `turn ${k}` }));
    fs.writeFileSync(file, `${JSON.stringify({ trace_id: 'band', task_id: 'band', system: 'test' })}\n${events.join('\n')}\n`);
    try {
      const frame = await openAtFit(file);
      for (const index of [0, 60, 1, 179]) {
        await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${index} }`, frame);
        const seen = await until(`event ${index} selected, its details shown, drawn`, () =>
          evalInWebview<{ pan: number; node: number; height: number; lanes: number; uncovered: number } | undefined>(
            `() => { const o = globalThis.__otrace; if (o.current() !== ${index} || o.details()?.index !== ${index} || !o.settled()) return undefined; const b = o.view.eventBox(${index}); const last = o.view.laneBox(o.graph.lanes.length - 1);
              const graph = document.getElementById('graph').getBoundingClientRect(), details = document.getElementById('details').getBoundingClientRect();
              const over = details.height > 0 && details.top < graph.bottom && details.left < graph.right && details.right > graph.left;
              return { pan: o.cy.pan().y, node: b ? (b.y1 + b.y2) / 2 : -1, height: o.cy.height(), lanes: last.top + last.height, uncovered: over ? details.top - graph.top : o.cy.height() }; }`,
            { selector: frame },
          ),
        );
        // (beside the trace the panel is narrow: its details are a drawer over the bottom of the graph)
        assert.ok(seen.node >= 0 && seen.node <= seen.uncovered, `event ${index} in view, not under the details: ${JSON.stringify(seen)}`);
        assert.ok(seen.pan <= 0, `the first lane's top is at or above the graph's top (no band of nothing under the axis): ${JSON.stringify(seen)}`);
        assert.ok(seen.pan >= Math.min(0, seen.uncovered - seen.lanes) - 1, `the last lane's bottom is at or under the graph's bottom (the details' top): ${JSON.stringify(seen)}`);
      }
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
