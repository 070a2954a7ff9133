/**
 * A trace whose time counts steps (Who&When, MAST AG2: the importer says `metadata.time:
 * 'step-index'`) prints steps everywhere a figure of time is shown: `otrace stats` and `otrace
 * analyze` text, finding messages, the hover's text, the details pane and the graph's findings.
 * Never "s" or "seconds" for what is a step number. Three variants of each real log (agents
 * renamed, noise turns interleaved, text reworded) so that the rule holds for the kind, not the file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { analysisLines } from '../../../src/cli/analyze';
import { statsLines } from '../../../src/cli/stats';
import { hoverFigures } from '../../../src/host/editor/hover-text';
import { graphEvent, graphOverview } from '../../../src/engine/graph-window';
import { eventInfo, outline } from '../../../src/engine/queries';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { LoadedTrace } from '../../../src/trace/model';
import { traceStats } from '../../../src/trace/stats';
import { fixture } from '../helpers';

/** A time figure in seconds: a number followed by ` s` / `s`, or the word second(s). */
const SECONDS = /\b\d+(?:\.\d+)?\s?s\b|\bseconds?\b/;

type Json = Record<string, unknown>;

/** Who&When: `history` of `{role, content}`. */
const WHO_AND_WHEN: Record<string, (d: Json) => void> = {
  renamed: (d) => {
    const names: [RegExp, string][] = [
      [/WebSurfer/g, 'PageReader'],
      [/Assistant/g, 'Helper'],
      [/Computer_terminal/g, 'Shell_runner'],
      [/Verification_Expert/g, 'Checker_Expert'],
    ];
    for (const h of d.history as Json[]) for (const [re, to] of names) for (const k of ['role', 'name', 'content']) if (typeof h[k] === 'string') h[k] = (h[k] as string).replace(re, to);
  },
  noise: (d) => {
    const out: Json[] = [];
    for (const h of d.history as Json[]) {
      out.push(h);
      // a turn that says nothing new, from the speaker itself, after each of its turns
      if (h.role !== 'human' && typeof h.role === 'string' && !/Orchestrator/.test(h.role)) out.push({ ...h, content: 'Still working on it; nothing new yet.' });
    }
    d.history = out;
  },
  reworded: (d) => {
    for (const h of d.history as Json[]) if (typeof h.content === 'string') h.content = (h.content as string).replace(/\bthe\b/g, 'that').replace(/\bI\b/g, 'We');
  },
};

/** MAST AG2 (early annotation round): `trajectory` text of turns. */
const MAST_AG2: Record<string, (d: Json) => void> = {
  renamed: (d) => {
    const to: Record<string, string> = { mathproxyagent: 'math_relay', assistant: 'solver_bot' };
    for (const turn of d.trajectory as Json[]) if (typeof turn.name === 'string') turn.name = to[turn.name] ?? turn.name;
  },
  noise: (d) => {
    // a repeated nudge after each of the proxy's turns
    d.trajectory = (d.trajectory as Json[]).flatMap((turn) => (turn.name === 'mathproxyagent' ? [turn, { ...turn, content: ['Continue.'] }] : [turn]));
  },
  reworded: (d) => {
    d.trajectory = JSON.parse(JSON.stringify(d.trajectory).replace(/\bthe\b/g, 'that').replace(/\bLet's\b/g, 'We will'));
  },
};

interface Source {
  file: string[];
  variants: Record<string, (d: Json) => void>;
}

const SOURCES: Source[] = [
  { file: ['who-and-when', 'Hand-Crafted', '57.json'], variants: WHO_AND_WHEN },
  { file: ['who-and-when', 'Hand-Crafted', '9.json'], variants: WHO_AND_WHEN },
  { file: ['who-and-when', 'Algorithm-Generated', '12.json'], variants: WHO_AND_WHEN },
  { file: ['mast', 'AG2_early_human_annotated', 'AG2_trace2.json'], variants: MAST_AG2 },
];

/** Every text a user reads about the trace, from the CLI, the findings, the hover and the graph. */
function shownTexts(loaded: LoadedTrace, name: string): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const stats = traceStats(loaded);
  for (const l of statsLines(name, stats)) out.push({ where: 'stats', text: l });
  const a = analyzeTrace(loaded);
  for (const l of analysisLines(name, a, () => 'line')) out.push({ where: 'analyze', text: l });
  for (const f of a.findings) out.push({ where: `finding ${f.kind}`, text: f.message });
  for (const s of a.stops) out.push({ where: 'stop', text: s.message });
  const snap = makeSnapshot('k', 1, name, loaded);
  for (const f of graphOverview(snap, name).findings) out.push({ where: 'graph finding', text: f.message });
  for (let i = 0; i < loaded.trace.events.length; i++) {
    const info = eventInfo(snap, i)!;
    const hover = hoverFigures(info);
    out.push({ where: `hover ${i}`, text: [hover.when, ...hover.figures].join(' · ') });
    for (const [k, v] of graphEvent(snap, i)!.fields) if (k !== 'id' && k !== 'agent' && k !== 'detail') out.push({ where: `details ${i} ${k}`, text: `${k} ${v}` });
  }
  for (const lane of outline(snap, '')) for (const e of lane.events) out.push({ where: 'outline', text: e.when });
  return out;
}

for (const source of SOURCES) {
  for (const [variant, change] of Object.entries({ original: (_d: Json) => {}, ...source.variants })) {
    test(`a step-clock trace prints steps everywhere: ${source.file.join('/')} (${variant})`, () => {
      const d = JSON.parse(fixture(...source.file)) as Json;
      change(d);
      const loaded = loadTrace(JSON.stringify(d, null, 1), 'log.json');
      assert.equal((loaded.trace.metadata as Json | undefined)?.time, 'step-index', 'the importer says t counts steps');
      const texts = shownTexts(loaded, 'log.json');
      const wrong = texts.filter((t) => SECONDS.test(t.text));
      assert.deepEqual(wrong, [], 'no figure of a step-clock trace is in seconds');
      // and the unit is said where time is shown
      const time = texts.find((t) => t.where === 'stats' && /^\s*time\b/.test(t.text))!;
      assert.match(time.text, /step 0 \.\. step \d+ \(\d+ steps\)/);
      const metrics = texts.find((t) => t.where === 'analyze' && /parallelism/.test(t.text))!;
      assert.match(metrics.text, /steps|events/);
      assert.ok(texts.some((t) => t.where.startsWith('hover') && /^step \d+/.test(t.text)), 'the hover says the step');
      assert.ok(texts.some((t) => t.where.startsWith('details') && /^step \d+$/.test(t.text)), 'the details pane says the step');
    });
  }
}

test('a clocked trace keeps seconds in the same texts (the check can tell the units apart)', () => {
  const loaded = loadTrace(fixture('agentops', 'trace.agentops.json'), 'trace.agentops.json');
  const texts = shownTexts(loaded, 'x.json');
  assert.match(texts.find((t) => t.where === 'stats' && /^\s*time\b/.test(t.text))!.text, /\d s \.\. \d+(\.\d+)? s/);
  assert.ok(texts.some((t) => t.where.startsWith('details') && /^t \d+(\.\d+)? s$/.test(t.text)));
  assert.ok(texts.some((t) => t.where.startsWith('hover') && /^t = \d+(\.\d+)? s/.test(t.text)));
});
