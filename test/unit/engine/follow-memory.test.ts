/**
 * A followed trace's memory does not grow with its appends: what the layout of a read is extended
 * from is let go once the next read's layout is made. (Each graph index held the structure before
 * it, that one's index the one before, and so on: at 1M events the engine kept about 40 MB more
 * per append of 100 lines, until it ran out of memory.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { after, describe, it } from 'node:test';
import { layoutStructure } from '../../../src/engine/graph-structure';
import { followLayout } from '../../../src/engine/structure-growth';
import { graphIndex, graphIndexExtensions } from '../../../src/engine/graph-index';
import { readSnapshot, type TraceSnapshot } from '../../../src/engine/snapshot';
import { SessionStore } from '../../../src/engine/session-store';
import '../../../src/trace/importers';
import { FollowedFile } from '../trace/followed-file';

v8.setFlagsFromString('--expose-gc');
/** A full collection (the flag above makes `gc` in a new context). */
const collect = vm.runInNewContext('gc') as () => void;

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-follow-memory-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const header = JSON.stringify({ trace_id: 'm', task_id: 'm', system: 'test' });
/** Events of two agents talking and calling tools, from time `k0` on. */
function events(k0: number, count: number): string {
  const lines: string[] = [];
  for (let k = k0; k < k0 + count; k++) {
    const agent = k % 2 ? 'worker' : 'orchestrator';
    lines.push(JSON.stringify(k % 3 === 0 ? { id: `e${k}`, t: k, type: 'tool_call', agent, tool: 'bash' } : k % 3 === 1 ? { id: `e${k}`, t: k, type: 'tool_result', agent: k % 2 ? 'orchestrator' : 'worker', tool: 'bash' } : { id: `e${k}`, t: k, type: 'message', agent, to: k % 2 ? 'orchestrator' : 'worker', content: `m${k}` }));
  }
  return `${lines.join('\n')}\n`;
}

describe('a followed trace in memory', () => {
  it('lets go of the layout and graph index of earlier reads once the next read is laid out', async () => {
    const f = new FollowedFile(DIR, `${header}\n${events(0, 30)}`);
    const earlier: WeakRef<object>[] = [];
    /** The events of each read but the first (whose whole build's lane table keeps them: one list, not one per read). */
    const lists: WeakRef<object>[] = [];
    /** A read laid out as the graph view asks for it (its structure and index extended from the last read's). */
    const readAndLayOut = (): TraceSnapshot => {
      const { loaded } = f.load();
      followLayout(loaded); // as a session does for a file seen growing
      const snapshot = readSnapshot('k', -1, f.file, loaded);
      graphIndex(snapshot);
      return snapshot;
    };
    const extensionsBefore = graphIndexExtensions();
    let current = readAndLayOut();
    for (let k = 1; k <= 6; k++) {
      earlier.push(new WeakRef(layoutStructure(current.loaded)));
      if (k > 1) lists.push(new WeakRef(current.loaded.trace.events));
      f.append(events(30 * k, 30));
      current = readAndLayOut();
    }
    assert.ok(graphIndexExtensions() - extensionsBefore >= 5, 'the reads extended their graph index from the last one');
    // WeakRefs hold their targets until the current job ends
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    const kept = earlier.filter((r) => r.deref() !== undefined).length;
    assert.equal(kept, 0, `${kept} of ${earlier.length} earlier layouts still in memory`);
    const listsKept = lists.filter((r) => r.deref() !== undefined).length;
    assert.equal(listsKept, 0, `${listsKept} of ${lists.length} earlier lists of events still in memory`);
    assert.equal(graphIndex(current).layout.events.length, 210, 'the current read is laid out');
  });

  it('keeps one read in a session that follows it: its layout, graph, overview sent and analysis; none of the reads before', async () => {
    const file = path.join(DIR, 'session.otrace.jsonl');
    fs.writeFileSync(file, `${header}\n${events(0, 30)}`);
    const store = new SessionStore();
    const sessions = (store as unknown as { sessions: Map<string, { snapshot?: TraceSnapshot }> }).sessions;
    let id = 0;
    let held: number | undefined;
    /** Loads what is on disk (analysed, as the engine does) and asks the overview as the graph view does. */
    const update = async (): Promise<TraceSnapshot> => {
      await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id);
      held = store.graphOverviewUpdate('k', 'title', 800, held)!.stamp;
      return sessions.get('k')!.snapshot!;
    };
    await update();
    fs.appendFileSync(file, events(30, 30));
    await update(); // seen growing: followed from here
    /** Six appends, each read's snapshot, layout and events held weakly (in a function of its own: no local of the test's frame holds one). */
    const followSix = async (): Promise<WeakRef<object>[]> => {
      const refs: WeakRef<object>[] = [];
      for (let k = 2; k <= 7; k++) {
        const s = await update();
        refs.push(new WeakRef(s), new WeakRef(layoutStructure(s.loaded)));
        // (the read laid out whole first is the one whose events its lane table keeps, for every read after it)
        if (k > 2) refs.push(new WeakRef(s.loaded.trace.events));
        fs.appendFileSync(file, events(30 * k, 30));
      }
      return refs;
    };
    const earlier = await followSix();
    const last = await update();
    assert.equal(last.loaded.trace.events.length, 240);
    assert.ok(last.analysis, 'analysed');
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    const kept = earlier.filter((r) => r.deref() !== undefined).length;
    assert.equal(kept, 0, `${kept} of ${earlier.length} snapshots, layouts and lists of events of earlier reads still in memory`);
  });
});
