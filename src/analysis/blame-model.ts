/**
 * Which step of a failed run is the decisive error: a conditional logit over the run's agent steps
 * (McFadden 1974, "Conditional logit analysis of qualitative choice behavior"). Each step i has
 * evidence x_i (blame-evidence.ts); P(step i) = exp(w·x_i) / Σ_j exp(w·x_j) over the run's steps;
 * an agent's share of the blame is the sum of its steps' P (blame.ts names the most likely step's
 * agent, and shows the shares). The weights w are fitted by
 * {@link fitBlameWeights} (maximum likelihood with an L2 penalty) on the labelled Who&When files
 * (`npm run eval` refits them per fold to score unseen files: the cross-validated figures are in
 * docs/analysis.md); `npm run eval` prints the fit and warns when {@link BLAME_WEIGHTS} differ from it.
 */
import { EVIDENCE_FEATURES, type StepEvidence } from './blame-evidence';

/** L2 penalty of the fit: chosen among 1, 3 and 10 by 5-fold cross-validation on the labelled files (`npm run eval` repeats the choice inside each fold and warns when it no longer picks this one). */
export const BLAME_L2 = 10;

/**
 * Weights of {@link EVIDENCE_FEATURES}, in that order: the fit on all 61 labelled Who&When files
 * of the corpus (Algorithm-Generated 42, Hand-Crafted 19), L2 = {@link BLAME_L2}.
 */
export const BLAME_WEIGHTS: readonly number[] = [-0.19, 0.13, 0.11, 0.27, 0.27, 0.4, 0.17, -0.18, -0.28, 0.07, 0.14, 0.16, 0.1];

/** The model's reading of a run: each step's probability and each agent's share. */
export interface BlameScores {
  /** P(step is the decisive error), per step of the input, summing to 1. */
  p: number[];
  /** The most likely step (index into the input). */
  best: number;
  /** Blame share per agent (sum of its steps' P), largest first. */
  agents: { agent: string; share: number }[];
}

/** w·x for one step. */
function score(weights: readonly number[], x: readonly number[]): number {
  let s = 0;
  for (let k = 0; k < x.length; k++) s += weights[k] * x[k];
  return s;
}

/** Softmax of the steps' scores (stable: the largest score is subtracted first). */
function probabilities(weights: readonly number[], steps: readonly { features: readonly number[] }[]): number[] {
  const s = steps.map((st) => score(weights, st.features));
  // a loop, not Math.max(...s): spreading 100k+ steps as arguments overflows the call stack
  let top = -Infinity;
  for (const v of s) if (v > top) top = v;
  const e = s.map((v) => Math.exp(v - top));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/**
 * Scores a run's steps.
 * @param steps the run's steps with their evidence (blame-evidence.ts), at least one
 * @param weights one per feature (default {@link BLAME_WEIGHTS})
 * @throws RangeError when `steps` is empty
 */
export function scoreSteps(steps: readonly StepEvidence[], weights: readonly number[] = BLAME_WEIGHTS): BlameScores {
  if (steps.length === 0) throw new RangeError('scoreSteps: no steps');
  const p = probabilities(weights, steps);
  let best = 0;
  for (let i = 1; i < p.length; i++) if (p[i] > p[best]) best = i;
  const shares = new Map<string, number>();
  for (let i = 0; i < steps.length; i++) shares.set(steps[i].agent, (shares.get(steps[i].agent) ?? 0) + p[i]);
  const agents = [...shares].map(([agent, share]) => ({ agent, share })).sort((a, b) => b.share - a.share);
  return { p, best, agents };
}

/** One labelled run for the fit: its steps' features and the index of the decisive step. */
export interface LabelledRun {
  features: readonly (readonly number[])[];
  decisive: number;
}

/**
 * Fits the weights by maximum likelihood with an L2 penalty: minimizes
 * Σ_runs −log P(decisive step) + l2·|w|² by Newton's method (the objective is convex and the
 * penalty makes its Hessian positive definite, so it converges to the one minimum in a few steps).
 * @param runs labelled runs (a run whose decisive step is not among its steps is skipped)
 * @param l2 penalty weight (default {@link BLAME_L2})
 * @returns weights, one per feature
 */
export function fitBlameWeights(runs: readonly LabelledRun[], l2 = BLAME_L2): number[] {
  const dims = EVIDENCE_FEATURES.length;
  const usable = runs.filter((r) => r.decisive >= 0 && r.decisive < r.features.length);
  const w = new Array<number>(dims).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const g = w.map((v) => 2 * l2 * v);
    const h = Array.from({ length: dims }, (_, a) => Array.from({ length: dims }, (_, b) => (a === b ? 2 * l2 : 0)));
    for (const run of usable) {
      const p = probabilities(w, run.features.map((features) => ({ features })));
      const mean = new Array<number>(dims).fill(0);
      for (let i = 0; i < p.length; i++) for (let k = 0; k < dims; k++) mean[k] += p[i] * run.features[i][k];
      for (let k = 0; k < dims; k++) g[k] -= run.features[run.decisive][k] - mean[k];
      for (let i = 0; i < p.length; i++) {
        const x = run.features[i];
        for (let a = 0; a < dims; a++) for (let b = 0; b < dims; b++) h[a][b] += p[i] * (x[a] - mean[a]) * (x[b] - mean[b]);
      }
    }
    const delta = solve(h, g);
    let size = 0;
    for (let k = 0; k < dims; k++) {
      w[k] -= delta[k];
      size = Math.max(size, Math.abs(delta[k]));
    }
    if (size < 1e-9) break;
  }
  return w;
}

/** Solves A·x = b for a symmetric positive definite A (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}
