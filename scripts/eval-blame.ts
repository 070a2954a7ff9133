/**
 * The Who&When blame evaluation, built to show over-fitting rather than hide it (issue "analysis
 * that holds on runs it has never seen"):
 * - per subset (Algorithm-Generated, Hand-Crafted): agent and step accuracy with 95% Wilson
 *   intervals, beside two priors computed on the OTHER subset (leave-one-subset-out): the majority
 *   mistake-agent role of the training side, and a uniform random pick (exact expectation);
 * - a per-rule ablation: for each blame rule, how many files change when it is removed and the
 *   accuracy without it, and the rule alone (files it fires on, accuracy there).
 * The blame rules have no fitted parameters; they were written by people who had read both subsets,
 * so only held-back files measure generalization. Labels are read here only (never by the analysis).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BLAME_RULES, type BlameRule } from '../src/analysis';
import { blameSteps, findBlame } from '../src/analysis/blame';
import { BLAME_L2, BLAME_WEIGHTS, fitBlameWeights, scoreSteps, type LabelledRun } from '../src/analysis/blame-model';
import { EVIDENCE_FEATURES } from '../src/analysis/blame-evidence';
import type { Outcome } from '../src/analysis/types';
import { SHARED, SPAN } from '../src/analysis/support';
import { TraceIndex } from '../src/analysis/trace-index';
import { loadTrace } from '../src/trace/formats';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';

export const SUBSETS = ['Algorithm-Generated', 'Hand-Crafted'] as const;

/** One labelled file: its lanes, steps, label, and the blame under each rule set. */
interface Case {
  subset: string;
  file: string;
  lanes: string[];
  steps: number;
  label: { agent: string; step: number };
  /** rule-set key -> [agent, record] or null */
  blame: Map<string, [string, number] | null>;
  /** The rule that decided under all rules. */
  basis?: BlameRule;
  /** slot setting key ('span/shared') -> blame under all rules with that contrary-input slot */
  grid: Map<string, [string, number] | null>;
  /** The run's agent steps (evidence features) with the labelled one marked, for refitting the weights. */
  run: LabelledRun;
  /** Blame under all rules with given weights and contrary-input slot (default slot when none; for the cross-validation). */
  blameWith: (weights: readonly number[], slot?: string) => [string, number] | null;
  /** The same file blamed without following derivations (the contrary-input rule as before derivation.ts): the ablation. */
  withoutDerivation?: Case;
}

/** Settings of the contrary-input slot tried by the cross-validation (support.ts; default 6/2). */
const GRID: { span: number; shared: number }[] = [3, 6, 10].flatMap((span) => [1, 2, 3].map((shared) => ({ span, shared })));
const gridKey = (g: { span: number; shared: number }) => `${g.span}/${g.shared}`;
const DEFAULT_KEY = gridKey({ span: SPAN, shared: SHARED });

const norm = (a: string) => a.toLowerCase().replace(/[^a-z0-9]/g, '');

/** 95% Wilson score interval of k successes in n trials, as `[lo, hi]` percentages (Wilson 1927). */
export function wilson(k: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 0];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const r = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(100 * (c - r)) / d, (100 * (c + r)) / d];
}

function ruleSets(): Map<string, readonly BlameRule[]> {
  const sets = new Map<string, readonly BlameRule[]>([['all', BLAME_RULES]]);
  for (const r of BLAME_RULES) {
    sets.set(`-${r}`, BLAME_RULES.filter((x) => x !== r));
    sets.set(`=${r}`, [r]);
  }
  return sets;
}

/** Reads and scores every labelled Who&When file under `corpus/who-and-when/<subset>/`. */
function readCases(corpus: string): Case[] {
  const sets = ruleSets();
  const cases: Case[] = [];
  for (const subset of SUBSETS) {
    const dir = path.join(corpus, 'who-and-when', subset);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))) {
      const file = path.join(dir, name);
      const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
      const gt = (loaded.trace.metadata?.ground_truth ?? {}) as { mistake_agent?: string; mistake_step?: number };
      if (typeof gt.mistake_agent !== 'string' || typeof gt.mistake_step !== 'number') continue;
      const index = new TraceIndex(loaded);
      const outcome = { status: 'failure' as const, value: -1, source: 'the benchmark: every run failed' };
      const blame = new Map<string, [string, number] | null>();
      let basis: BlameRule | undefined;
      for (const [key, rules] of sets) {
        const b = findBlame(index, outcome, { rules });
        blame.set(key, b ? [b.agent, b.record] : null);
        if (key === 'all') basis = b?.basis;
      }
      const grid = new Map<string, [string, number] | null>();
      for (const g of GRID) {
        const b = findBlame(index, outcome, { support: g });
        grid.set(gridKey(g), b ? [b.agent, b.record] : null);
      }
      const steps = new Set<number>();
      for (let i = 0; i < loaded.eventOrigins.length; i++) {
        const record = loaded.eventOrigins.record(i);
        if (record !== undefined) steps.add(record);
      }
      const evidence = blameSteps(index);
      const run: LabelledRun = { features: evidence.map((s) => s.features), decisive: evidence.findIndex((s) => s.record === gt.mistake_step) };
      // blame under other weights without running the whole analysis again: the contrary-input pick (it
      // comes first and has no weights), else the model's; checked below against findBlame
      const quickBlame = (derivation: boolean) => {
        const contrary = new Map<string, [string, number] | null>();
        for (const g of GRID) {
          const b = findBlame(index, outcome as Outcome, { rules: ['contrary_input'], support: g, derivation });
          contrary.set(gridKey(g), b ? [b.agent, b.record] : null);
        }
        return (weights: readonly number[], slot = DEFAULT_KEY): [string, number] | null => {
          const picked = contrary.get(slot);
          if (picked) return picked;
          if (!evidence.length) return null;
          const scores = scoreSteps(evidence, weights);
          return [evidence[scores.best].agent, evidence[scores.best].record];
        };
      };
      const blameWith = quickBlame(true);
      const base = { subset, file: name, run, lanes: [...new Set(loaded.trace.events.map((e) => e.agent))], steps: steps.size, label: { agent: gt.mistake_agent, step: gt.mistake_step } };
      const withoutDerivation: Case = { ...base, basis, grid, blame, blameWith: quickBlame(false) };
      cases.push({ ...base, basis, grid, blameWith, blame, withoutDerivation });
    }
  }
  return cases;
}

/** A blame `[agent, record]` (or none) against a file's label: is the agent right, is the step right. */
function hits(c: Case, b: [string, number] | null | undefined): { agent: boolean; step: boolean } {
  return { agent: !!b && norm(b[0]) === norm(c.label.agent), step: b?.[1] === c.label.step };
}
/** Agent hits + step hits: what every choice of a setting maximizes. */
const hitCount = (c: Case, b: [string, number] | null | undefined) => +hits(c, b).agent + +hits(c, b).step;
const hitAgent = (c: Case, key: string) => hits(c, c.blame.get(key)).agent;
const hitStep = (c: Case, key: string) => hits(c, c.blame.get(key)).step;

/** The contrary-input slot with the most hits on `train` when blamed by `blameOf` (ties keep the default, then grid order). */
function bestSlot(train: Case[], blameOf: (c: Case, key: string) => [string, number] | null | undefined): string {
  let best = DEFAULT_KEY;
  let bestHits = -1;
  for (const key of [DEFAULT_KEY, ...GRID.map(gridKey).filter((k) => k !== DEFAULT_KEY)]) {
    const total = train.reduce((sum, c) => sum + hitCount(c, blameOf(c, key)), 0);
    if (total > bestHits) {
      bestHits = total;
      best = key;
    }
  }
  return best;
}

function pctCI(k: number, n: number): string {
  const [lo, hi] = wilson(k, n);
  return `${((100 * k) / Math.max(n, 1)).toFixed(1)}% [${lo.toFixed(0)}–${hi.toFixed(0)}]`;
}

/** The majority mistake-agent role among `train` (normalized name). */
function majorityRole(train: Case[]): string {
  const counts = new Map<string, number>();
  for (const c of train) counts.set(norm(c.label.agent), (counts.get(norm(c.label.agent)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/** The report: leave-one-subset-out table, ablation table, and the cases' details when asked. */
export function whoAndWhenReport(corpus: string, verbose = false): string {
  const cases = readCases(corpus);
  if (cases.length === 0) return '(no labelled Who&When files found)\n';
  const out: string[] = [];
  const line = (cells: string[], widths: number[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const tbl = (header: string[], rows: string[][]) => {
    const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
    return [line(header, widths), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map((r) => line(r, widths))].join('\n');
  };

  const rows: string[][] = [];
  for (const test of [...SUBSETS, 'all'] as const) {
    const testCases = test === 'all' ? cases : cases.filter((c) => c.subset === test);
    if (testCases.length === 0) continue;
    const n = testCases.length;
    const agent = testCases.filter((c) => hitAgent(c, 'all')).length;
    const step = testCases.filter((c) => hitStep(c, 'all')).length;
    // majority-role priors: from the other subset, and from the other files of the same subset (leave one out)
    let majorityHits = 0;
    let looHits = 0;
    for (const c of testCases) {
      if (norm(c.label.agent) === majorityRole(cases.filter((x) => x.subset !== c.subset))) majorityHits++;
      if (norm(c.label.agent) === majorityRole(cases.filter((x) => x.subset === c.subset && x !== c))) looHits++;
    }
    const randAgent = testCases.reduce((s, c) => s + (c.lanes.some((l) => norm(l) === norm(c.label.agent)) ? 1 / c.lanes.length : 0), 0);
    const randStep = testCases.reduce((s, c) => s + 1 / Math.max(c.steps, 1), 0);
    const trainedOn = test === 'all' ? 'the other subset' : SUBSETS.find((s) => s !== test)!;
    rows.push([
      test,
      String(n),
      pctCI(agent, n),
      `${((100 * majorityHits) / n).toFixed(1)}%`,
      `${((100 * looHits) / n).toFixed(1)}%`,
      `${((100 * randAgent) / n).toFixed(1)}%`,
      pctCI(step, n),
      `${((100 * randStep) / n).toFixed(1)}%`,
      trainedOn,
    ]);
  }
  out.push('Priors computed on the training side only: the other subset (leave-one-subset-out), and the other files of the same subset (leave-one-file-out); [95% Wilson interval]');
  out.push(tbl(['test subset', 'files', 'agent acc', 'majority role, other subset', 'majority role, other files', 'random agent', 'step acc', 'random step', 'other subset'], rows));
  out.push('(In-sample: the evidence model\'s weights were fitted on these files. The figures to quote are the refitted ones below; held-back files are the figure that counts.)');

  out.push('');
  const cv = weightsCrossValidated(cases, tbl);
  out.push(cv.text);
  out.push('');
  out.push(crossValidated(cases, tbl));

  const ab: string[][] = [];
  const n = cases.length;
  const all = { agent: cases.filter((c) => hitAgent(c, 'all')).length, step: cases.filter((c) => hitStep(c, 'all')).length };
  for (const r of BLAME_RULES) {
    const changed = cases.filter((c) => JSON.stringify(c.blame.get(`-${r}`)) !== JSON.stringify(c.blame.get('all'))).length;
    const fired = cases.filter((c) => c.blame.get(`=${r}`) !== null);
    const firedByAll = cases.filter((c) => c.basis === r).length;
    const withoutA = cases.filter((c) => hitAgent(c, `-${r}`)).length;
    const withoutS = cases.filter((c) => hitStep(c, `-${r}`)).length;
    const aloneA = fired.filter((c) => hitAgent(c, `=${r}`)).length;
    const aloneS = fired.filter((c) => hitStep(c, `=${r}`)).length;
    ab.push([
      r,
      String(firedByAll),
      String(changed),
      `${((100 * withoutA) / n).toFixed(1)}% (${signed(withoutA - all.agent)})`,
      `${((100 * withoutS) / n).toFixed(1)}% (${signed(withoutS - all.step)})`,
      String(fired.length),
      fired.length ? `${((100 * aloneA) / fired.length).toFixed(1)}%` : 'n/a',
      fired.length ? `${((100 * aloneS) / fired.length).toFixed(1)}%` : 'n/a',
    ]);
  }
  out.push('');
  out.push(`Ablation over all ${n} files (all rules: agent ${all.agent}, step ${all.step} right)`);
  out.push(tbl(['rule', 'decides', 'changed if removed', 'agent acc without', 'step acc without', 'fires alone on', 'agent acc alone', 'step acc alone'], ab));
  if (verbose) {
    out.push('');
    for (const c of cases) {
      const b = c.blame.get('all');
      const f = cv.fullyNested.get(c) ?? null;
      const h = hits(c, f);
      out.push(
        `${c.subset}/${c.file}: blame ${b ? `${b[0]}@${b[1]}` : 'none'} (${c.basis ?? 'none'}) ${hitAgent(c, 'all') ? 'A' : '-'}${hitStep(c, 'all') ? 'S' : '-'}; fully nested ${f ? `${f[0]}@${f[1]}` : 'none'} ${h.agent ? 'A' : '-'}${h.step ? 'S' : '-'}; label ${c.label.agent}@${c.label.step}`,
      );
    }
  }
  return out.join('\n') + '\n';
}

/**
 * Cross-validation of the one setting the blame rules have (the contrary-input slot, support.ts): the
 * setting is chosen on the training side only (most agent + step hits; ties keep the default) and
 * scored on the test side, by leave-one-subset-out and by leave-one-file-out.
 */
function crossValidated(cases: Case[], tbl: (header: string[], rows: string[][]) => string): string {
  const choose = (train: Case[]) => bestSlot(train, (c, key) => c.grid.get(key));
  const rows: string[][] = [];
  const score = (label: string, test: Case[], keyOf: (c: Case) => string, chosen: string) => {
    const a = test.filter((c) => hits(c, c.grid.get(keyOf(c))).agent).length;
    const st = test.filter((c) => hits(c, c.grid.get(keyOf(c))).step).length;
    rows.push([label, String(test.length), chosen, pctCI(a, test.length), pctCI(st, test.length)]);
  };
  for (const subset of SUBSETS) {
    const test = cases.filter((c) => c.subset === subset);
    if (!test.length) continue;
    const key = choose(cases.filter((c) => c.subset !== subset));
    score(`leave-one-subset-out: ${subset}`, test, () => key, key);
  }
  const looKeys = new Map(cases.map((c) => [c, choose(cases.filter((x) => x !== c))]));
  const chosen = [...new Set(looKeys.values())].join(', ');
  score('leave-one-file-out: all', cases, (c) => looKeys.get(c)!, chosen);
  return [
    `Contrary-input slot (span/shared, support.ts; default ${DEFAULT_KEY}) chosen on the training side among ${GRID.map(gridKey).join(' ')}, scored on the test side:`,
    tbl(['scheme', 'files', 'chosen', 'agent acc', 'step acc'], rows),
  ].join('\n');
}

/**
 * Cross-validation of the evidence model's weights (blame-model.ts): they are refitted on the
 * training side only (L2 fixed) and the test side is blamed with them, by leave-one-subset-out and by
 * leave-one-file-out. The shipped weights are the fit on every file, so the table above is in-sample;
 * these rows are the figures to quote.
 */
function weightsCrossValidated(cases: Case[], tbl: (header: string[], rows: string[][]) => string): { text: string; fullyNested: Map<Case, [string, number] | null> } {
  const rows: string[][] = [];
  const score = (label: string, test: Case[], blameOf: (c: Case) => [string, number] | null) => {
    const got = test.map((c) => hits(c, blameOf(c)));
    const a = got.filter((h) => h.agent).length;
    const st = got.filter((h) => h.step).length;
    // the prior to beat: always name the most common mistake agent of the other files of the test file's subset
    const prior = test.filter((c) => norm(c.label.agent) === majorityRole(cases.filter((x) => x.subset === c.subset && x !== c))).length;
    rows.push([label, String(test.length), pctCI(a, test.length), `${((100 * prior) / test.length).toFixed(1)}% (${priorName(cases, test)})`, pctCI(st, test.length)]);
  };
  // a scheme that blames every file (each with a model fitted without it): a row per subset, then all
  const scoreBySubset = (scheme: string, blame: Map<Case, [string, number] | null>) => {
    for (const subset of SUBSETS) {
      const test = cases.filter((c) => c.subset === subset);
      if (test.length) score(`${scheme}: ${subset}`, test, (c) => blame.get(c)!);
    }
    score(`${scheme}: all`, cases, (c) => blame.get(c)!);
  };
  for (const subset of SUBSETS) {
    const test = cases.filter((c) => c.subset === subset);
    if (!test.length) continue;
    const w = fitBlameWeights(cases.filter((c) => c.subset !== subset).map((c) => c.run));
    score(`leave-one-subset-out: ${subset}`, test, (c) => c.blameWith(w));
  }
  scoreBySubset('leave-one-file-out', new Map(cases.map((c) => [c, c.blameWith(fitBlameWeights(cases.filter((x) => x !== c).map((x) => x.run)))])));
  const nested = nestedPenalty(cases);
  scoreBySubset('nested, λ chosen in the fold', nested.blame);
  const full = fullyNested(cases, nested.penalty);
  scoreBySubset('fully nested, λ and slot chosen in the fold', full.blame);
  // the ablation: the same fully nested procedure with the contrary-input rule not following derivations
  const plain = cases.map((c) => c.withoutDerivation ?? c);
  const plainFull = fullyNested(plain, nestedPenalty(plain).penalty).blame;
  scoreBySubset('fully nested, without derivations', new Map(cases.map((c, k) => [c, plainFull.get(plain[k]) ?? null])));
  const reachable = cases.filter((c) => c.run.decisive >= 0).length;
  const mismatched = cases.filter((c) => JSON.stringify(c.blameWith(BLAME_WEIGHTS)) !== JSON.stringify(c.blame.get('all')));
  const fitted = fitBlameWeights(cases.map((c) => c.run));
  const drift = Math.max(...fitted.map((w, k) => Math.abs(w - BLAME_WEIGHTS[k])));
  const text = [
    `Evidence-model weights (blame-model.ts, L2 ${BLAME_L2}) refitted on the training side, scored on the test side:`,
    tbl(['scheme', 'files', 'agent acc', 'majority agent prior', 'step acc'], rows),
    'Majority agent prior: always name the most common mistake agent of the other files of the same subset (leave-one-file-out; the name it names on most files in brackets). It reads agent names; the blame does not.',
    `Labelled step among the model's candidate steps (blameSteps) in ${reachable} of ${cases.length} files (the others cannot score a step and are left out of the fit).`,
    `Fully nested: λ as in the nested rows, then the contrary-input slot chosen among ${GRID.length} settings on the training files with the fold's weights (chosen: ${[...full.slots].map(([k, n]) => `${k} ×${n}`).join(', ')}).`,
    `Nested: the L2 penalty chosen among ${NESTED_L2.join(', ')} by ${INNER_FOLDS}-fold cross-validation inside each leave-one-file-out fold (chosen: ${[...nested.chosen].map(([l, n]) => `${l} ×${n}`).join(', ')}); on all files: ${nested.onAll}${nested.onAll === BLAME_L2 ? ' (= the shipped BLAME_L2)' : `, WARNING: the shipped BLAME_L2 is ${BLAME_L2}`}.` +
      (mismatched.length ? `\nWARNING: the quick blame of the cross-validation differs from findBlame on ${mismatched.map((c) => c.file).join(', ')}` : ''),
    `Fit on all ${cases.length} files: ${EVIDENCE_FEATURES.map((f, k) => `${f} ${fitted[k].toFixed(2)}`).join(', ')}` +
      (drift > 0.01 ? `\nWARNING: the shipped BLAME_WEIGHTS differ from this fit by up to ${drift.toFixed(2)}: paste [${fitted.map((w) => w.toFixed(2)).join(', ')}]` : ' (= the shipped BLAME_WEIGHTS)'),
  ].join('\n');
  return { text, fullyNested: full.blame };
}

/** The agent the majority prior names on most of `test`'s files (each named from the other files of its subset). */
function priorName(cases: Case[], test: Case[]): string {
  const named = new Map<string, number>();
  for (const c of test) {
    const role = majorityRole(cases.filter((x) => x.subset === c.subset && x !== c));
    named.set(role, (named.get(role) ?? 0) + 1);
  }
  const original = (role: string) => cases.find((c) => norm(c.label.agent) === role)?.label.agent ?? role;
  return [...named].sort((a, b) => b[1] - a[1]).map(([r]) => original(r))[0] ?? '';
}

/** L2 penalties the nested cross-validation chooses among, and its inner folds. */
const NESTED_L2 = [1, 3, 10];
const INNER_FOLDS = 5;

/**
 * Leave-one-file-out with the L2 penalty chosen inside each fold (by inner cross-validation on the
 * training files: most agent + step hits), so the choice of the penalty is cross-validated too.
 * @returns each file's blame and the penalty chosen without it, how often each penalty was chosen, and the one the same choice makes on all files (the one to ship)
 */
function nestedPenalty(cases: Case[]): { blame: Map<Case, [string, number] | null>; penalty: Map<Case, number>; chosen: Map<number, number>; onAll: number } {
  const blame = new Map<Case, [string, number] | null>();
  const penalty = new Map<Case, number>();
  const chosen = new Map<number, number>();
  for (const test of cases) {
    const train = cases.filter((c) => c !== test);
    const best = choosePenalty(train);
    penalty.set(test, best);
    chosen.set(best, (chosen.get(best) ?? 0) + 1);
    blame.set(test, test.blameWith(fitBlameWeights(train.map((c) => c.run), best)));
  }
  return { blame, penalty, chosen, onAll: choosePenalty(cases) };
}

/**
 * Leave-one-file-out with every setting chosen inside the fold: λ (the one {@link nestedPenalty} chose for the fold, `penalty`), the
 * weights, and the contrary-input slot (most agent + step hits on the training files with the fold's
 * weights; ties keep the default). The shipped slot (support.ts) was itself picked on these files, so
 * the nested rows, which keep it, do not cross-validate it.
 */
function fullyNested(cases: Case[], penalty: ReadonlyMap<Case, number>): { blame: Map<Case, [string, number] | null>; slots: Map<string, number> } {
  const blame = new Map<Case, [string, number] | null>();
  const slots = new Map<string, number>();
  for (const test of cases) {
    const train = cases.filter((c) => c !== test);
    const w = fitBlameWeights(train.map((c) => c.run), penalty.get(test)!);
    const slot = bestSlot(train, (c, key) => c.blameWith(w, key));
    slots.set(slot, (slots.get(slot) ?? 0) + 1);
    blame.set(test, test.blameWith(w, slot));
  }
  return { blame, slots };
}

/** The L2 penalty among {@link NESTED_L2} with the most agent + step hits by {@link INNER_FOLDS}-fold cross-validation on `train` (ties keep the shipped BLAME_L2, as {@link bestSlot} keeps the default slot; then the smaller). */
function choosePenalty(train: Case[]): number {
  let best = BLAME_L2;
  let bestHits = -1;
  for (const l2 of [BLAME_L2, ...NESTED_L2.filter((l) => l !== BLAME_L2)]) {
    let total = 0;
    for (let fold = 0; fold < INNER_FOLDS; fold++) {
      const w = fitBlameWeights(train.filter((_, k) => k % INNER_FOLDS !== fold).map((c) => c.run), l2);
      for (const c of train.filter((_, k) => k % INNER_FOLDS === fold)) total += hitCount(c, c.blameWith(w));
    }
    if (total > bestHits) {
      bestHits = total;
      best = l2;
    }
  }
  return best;
}

function signed(d: number): string {
  return d > 0 ? `+${d}` : String(d);
}
