/**
 * Whether a run's final answer is the benchmark's correct answer, by the GAIA benchmark's own
 * scorer (Mialon et al. 2023, "GAIA: a benchmark for General AI Assistants"; the leaderboard's
 * `question_scorer`, huggingface.co/spaces/gaia-benchmark/leaderboard, scorer.py): a number is
 * compared as a number ($, % and thousands commas dropped); a list (`,` or `;` in the correct
 * answer) element by element, as many elements in both; any other string without whitespace and
 * case (and, outside lists, punctuation). An exact match after that, no partial credit.
 */

/** Python's `float(s)` on a string (surrounding whitespace allowed), without `inf`/`nan`: undefined when it is no number. */
function pythonFloat(s: string): number | undefined {
  const t = s.trim().replace(/_/g, '');
  return /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t) ? Number(t) : undefined;
}

/** The scorer's `normalize_number_str`: the number with $, % and commas dropped; Infinity when it is none (so it equals nothing). */
function numberOf(s: string): number {
  return pythonFloat(s.replace(/[$%,]/g, '')) ?? Infinity;
}

/** ASCII punctuation, as Python's `string.punctuation`. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** The scorer's `normalize_str`: no whitespace, lower case, and (by default) no punctuation. */
function normalized(s: string, dropPunctuation = true): string {
  const bare = s.replace(/\s/g, '').toLowerCase();
  return dropPunctuation ? bare.replace(PUNCTUATION, '') : bare;
}

/**
 * True when `answer` (the run's final answer) is `truth` (the benchmark's correct answer) by the
 * GAIA scorer (see the module's comment). Pure; never throws.
 */
export function gaiaCorrect(answer: string, truth: string): boolean {
  if (pythonFloat(truth) !== undefined) return numberOf(answer) === pythonFloat(truth);
  if (/[,;]/.test(truth)) {
    const truths = truth.split(/[,;]/);
    const answers = answer.split(/[,;]/);
    if (truths.length !== answers.length) return false;
    return truths.every((t, k) => {
      const n = pythonFloat(t);
      return n !== undefined ? numberOf(answers[k]) === n : normalized(answers[k], false) === normalized(t, false);
    });
  }
  return normalized(answer) === normalized(truth);
}
