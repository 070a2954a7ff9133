/**
 * The graph panel that follows the active trace never applies what was meant for the trace it
 * showed before (issue 25):
 * - a click in the graph sent just before the panel follows another trace selects nothing in the
 *   new trace (the click names an event of the old snapshot: its stamp is not the new one's);
 * - the view kept for a trace (zoom, pan) is kept by its URI: another trace with the same file name
 *   opens at Fit, not at the first one's zoom.
 * The click's message is held in the webview's frame until the host's `loading` message for the
 * next trace arrives: the host has then already moved to the next trace when the click reaches it,
 * as when a user clicks just before the panel follows (no timing involved).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { evalInWebview } from './bridge';
import { until } from './wait';
import type { OtraceApi } from '../../src/host/extension';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const CLAUDE = path.join(ROOT, 'test', 'fixtures', 'claude-code', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
/** Two traces with one file name, in two folders. */
const TWELVE_A = path.join(ROOT, 'test', 'fixtures', 'who-and-when', 'Algorithm-Generated', '12.json');
const TWELVE_B = path.join(ROOT, 'test', 'fixtures', 'who-and-when', 'Hand-Crafted', '12.json');
const ready = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

async function showInFirstColumn(file: string): Promise<void> {
  await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One, preview: false });
}

/** What the page recorded of the click it made on the host's `loading` message. */
interface StaleClick {
  /** The event clicked (index in the old trace). */
  index: number;
  /** The old trace's current event right after the click (the event the click selected). */
  selected: number | null;
  /** Messages of the click held back. */
  held: number;
}

describe('the following graph panel drops what was meant for the trace it showed before', function () {
  this.timeout(150_000);
  let api: OtraceApi;
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a click sent just before the panel follows another trace selects nothing in the new trace', async () => {
    await showInFirstColumn(CLAUDE);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    const demoEvents = (await api.sessions.forUri(vscode.Uri.file(DEMO)))!.counts.events;
    // The click is made now, in the old trace; its message to the host is held in the webview's
    // frame until the host has moved to the next trace (its `loading` message arrived): a click
    // still on its way while the panel follows another trace.
    const click = await evalInWebview<StaleClick>(
      `() => {
        // the webview's outer frame sends the page's messages to VS Code through a MessagePort
        const outer = window.frameElement.ownerDocument.defaultView;
        const proto = outer.MessagePort.prototype;
        const send = proto.postMessage;
        const held = [];
        proto.postMessage = function (m, transfer) {
          if (m?.channel === 'onmessage' && m.data?.message?.type === 'selected') held.push(() => send.call(this, m, transfer));
          else send.call(this, m, transfer);
        };
        const onMessage = (e) => {
          if (e.data?.type !== 'loading') return;
          window.removeEventListener('message', onMessage, true);
          proto.postMessage = send;
          for (const release of held.splice(0)) release();
        };
        window.addEventListener('message', onMessage, true);
        // an event of the old trace that the new one has too (a smaller index), clicked as the mouse does: press and release on its place
        const { cy } = globalThis.__otrace;
        const node = cy.nodes('.event').filter((n) => n.data('index') < ${demoEvents - 5} && n.visible()).sort((a, b) => a.data('index') - b.data('index'))[0];
        if (!node) return { index: -1, selected: null, held: 0 };
        const box = cy.container().getBoundingClientRect();
        const p = node.renderedPosition();
        const at = { clientX: box.left + p.x, clientY: box.top + p.y, bubbles: true, cancelable: true, button: 0, buttons: 1, view: window };
        const canvas = cy.container().querySelector('canvas:last-of-type') ?? cy.container();
        canvas.dispatchEvent(new MouseEvent('mousedown', at));
        canvas.dispatchEvent(new MouseEvent('mouseup', { ...at, buttons: 0 }));
        return { index: node.data('index'), selected: globalThis.__otrace.current(), held: held.length };
      }`,
      { selector: ready(CLAUDE), timeoutMs: 60_000 },
    );
    // the click selected an event (the one clicked, or one drawn over it) that the new trace has too; its message is held
    assert.ok(click.selected !== null && click.selected < demoEvents && click.held === 1, `the page clicked an event of the old trace: ${JSON.stringify(click)}`);

    await showInFirstColumn(DEMO); // the panel follows: the host sends `loading` (the click goes), then the new trace
    await evalInWebview('1', { selector: ready(DEMO), timeoutMs: 60_000 });

    // The host handles the page's messages in order: once it answered a filter asked after the
    // click, it has handled the click.
    await evalInWebview(
      `() => { const box = document.getElementById('search'); box.value = 'zz-no-event-has-this'; box.dispatchEvent(new Event('input', { bubbles: true })); }`,
      { selector: ready(DEMO) },
    );
    await until('the host answered the filter asked after the click', () =>
      evalInWebview<boolean>(`() => document.getElementById('matches').textContent === 'no event matches'`, { selector: ready(DEMO) }),
    );
    const shown = await evalInWebview<{ current: number | null; selected: number | null }>('() => ({ current: globalThis.__otrace.current(), selected: globalThis.__otrace.selected() })', { selector: ready(DEMO) });
    assert.deepEqual(shown, { current: null, selected: null }, 'nothing is selected in the new trace');
    const demoKey = vscode.Uri.file(DEMO).toString();
    assert.notEqual(api.selection.selection?.trace, demoKey, `the shared selection names no event of the new trace: ${JSON.stringify(api.selection.selection)}`);
    // leave the filter box empty for the next test
    await evalInWebview(`() => { const box = document.getElementById('search'); box.value = ''; box.dispatchEvent(new Event('input', { bubbles: true })); }`, { selector: ready(DEMO) });
  });

  it('keeps the view of a trace by its URI: another trace with the same file name opens at Fit; back on the first, its view comes back', async () => {
    await showInFirstColumn(TWELVE_A);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    // zoom into the first trace (the view is saved on every change) and mark its page state
    const zoomed = await evalInWebview<number>(
      `() => { const o = globalThis.__otrace; o.view.zoomAt(4, 40); o.mark = 'first'; return o.view.scale; }`,
      { selector: ready(TWELVE_A), timeoutMs: 60_000 },
    );
    await showInFirstColumn(TWELVE_B);
    // the same title: the page shows the second trace once its graph is a new one, ready
    const drawn = await until('the second trace drawn', () =>
      evalInWebview<{ scale: number; total: number } | null>(
        `() => { const o = globalThis.__otrace; return document.body.dataset.state === 'ready' && o && o.mark === undefined ? { scale: o.view.scale, total: o.graph.totalEvents } : null; }`,
        { selector: ready(TWELVE_B) },
      ).then((v) => v ?? undefined),
    );
    const b = (await api.sessions.forUri(vscode.Uri.file(TWELVE_B)))!;
    assert.equal(drawn.total, b.counts.events, 'the panel shows the second trace');
    const fit = await evalInWebview<number>(`() => { const v = globalThis.__otrace.view; const s = v.view(); v.fit(); const fit = v.scale; v.restore(s); return fit; }`, { selector: ready(TWELVE_B) });
    assert.notEqual(drawn.scale, zoomed, "the second trace does not open at the first one's zoom");
    assert.ok(Math.abs(drawn.scale - fit) < 1e-9 * fit, `the second trace opens at Fit: scale ${drawn.scale}, Fit ${fit}`);
    // back to the first trace's tab: its zoom comes back (the panel remembered only the last trace's view)
    await evalInWebview('() => { globalThis.__otrace.mark = "second"; }', { selector: ready(TWELVE_B) });
    await showInFirstColumn(TWELVE_A);
    const back = await until('the first trace drawn again', () =>
      evalInWebview<number | null>(`() => { const o = globalThis.__otrace; return document.body.dataset.state === 'ready' && o && o.mark === undefined ? o.view.scale : null; }`, { selector: ready(TWELVE_A) }).then((v) => v ?? undefined),
    );
    assert.ok(Math.abs(back - zoomed) < 1e-9 * zoomed, `the first trace comes back at its zoom: scale ${back}, saved ${zoomed}`);
  });
});
