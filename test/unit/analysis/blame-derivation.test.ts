/**
 * Known-answer traces for blame through a derivation (issue 24, point 6): an agent misreads a figure
 * of a tool's output and passes it on, another agent computes the answer from it correctly, the final
 * answer carries the result. The decisive error is the misreading, not the calculation: blame follows
 * the answer's value back to the numbers it was computed from, and stops at the earliest step whose
 * output contradicts its own inputs.
 *
 * Each scenario is written twice, as a Who&When log (AG2 expert team: turns `{name, role, content}`,
 * code run by `Computer_terminal`) and as an otrace JSONL trace, in three variants (renamed agents,
 * interleaved noise, reworded text with the calculation done in code), so that no name or string
 * can pass them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { operandsOf } from '../../../src/analysis/derivation';
import { canonicalValue } from '../../../src/analysis/text';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';

interface Scenario {
  name: string;
  /** agents: the one who reads the tool's output, the one who computes, the one who checks and answers */
  reader: string;
  calculator: string;
  checker: string;
  /** turns of an unrelated agent slipped in between (with numbers of their own) */
  noise: boolean;
  ask: string;
  /** the code that reads the source, and the tool's output (the true figure) */
  read: string;
  output: string;
  /** the reader's message: the figure misread */
  misread: string;
  /** the calculation: prose (a message with the result), or code whose run prints the result */
  calc: { prose: string } | { code: string; printed: string };
  final: string;
}

const UNITS = {
  ask: 'How much revenue did the North region make from widget sales in Q3, in dollars?',
  read: "print(open('sales_q3.csv').read())",
  output: 'region,quarter,units_sold,unit_price\nNorth region: units sold 1,250 in Q3, unit price $24',
  misread: 'The sales file says the North region sold 1,520 units in Q3, at a unit price of $24.',
  calc: { prose: 'Revenue of the North region in Q3 = 1,520 units × $24 = $36,480.' },
  final: 'I checked the multiplication: FINAL ANSWER: 36,480',
};

const SCENARIOS: Scenario[] = [
  { name: 'renamed agents', reader: 'Ledger_Expert', calculator: 'Arithmetic-β', checker: 'QA Bot 7', noise: false, ...UNITS },
  { name: 'interleaved noise', reader: 'DataAnalysis_Expert', calculator: 'Math_Expert', checker: 'Verification_Expert', noise: true, ...UNITS },
  {
    name: 'reworded, computed in code',
    reader: 'Logistics_Expert',
    calculator: 'Python_Expert',
    checker: 'Review_Expert',
    noise: false,
    ask: 'What was the average speed of the delivery van on the Lyon-Turin route, in km/h?',
    read: "print(open('van_log.txt').read())",
    output: 'Trip log. Route Lyon-Turin: distance 312 km, driving time 4.8 hours, fuel 41 litres.',
    misread: 'According to the log, the Lyon-Turin route has a distance of 321 km and the van drove it in 4.8 hours.',
    calc: { code: 'print(round(321 / 4.8, 1))', printed: '66.9' },
    final: 'The computation looks right to me. The answer is 66.9 km/h',
  },
];

/** Status lines of a monitor, with figures of their own (noise the analysis must see through). */
const noiseTurn = (k: number) => `Status check ${k}: queue length ${17 + k}, uptime ${42 + 3 * k} minutes, 0 errors.`;

/** The scenario as a Who&When (Algorithm-Generated) log: the manager restates the task, then the team works. */
function whoAndWhen(s: Scenario): string {
  const turns: { name: string; role: string; content: string }[] = [];
  // noise goes before a turn of the team (never after the last one: the run ends on the team's answer)
  const say = (name: string, content: string) => {
    if (s.noise) turns.push({ name: 'Monitor_Expert', role: 'assistant', content: noiseTurn(turns.length) });
    turns.push({ name, role: 'assistant', content });
  };
  const terminal = (output: string) => ({ name: 'Computer_terminal', role: 'user', content: `exitcode: 0 (execution succeeded)\nCode output: ${output}` });
  turns.push({ name: 'Manager_Expert', role: 'assistant', content: `# General Task\n${s.ask}\n\n## Plan\n1. Read the data file.\n2. Compute the answer.\n3. Check it.` });
  say(s.reader, `Let me read the data.\n\`\`\`python\n${s.read}\n\`\`\``);
  turns.push(terminal(s.output));
  say(s.reader, s.misread);
  if ('prose' in s.calc) say(s.calculator, s.calc.prose);
  else {
    say(s.calculator, `I will compute it.\n\`\`\`python\n${s.calc.code}\n\`\`\``);
    turns.push(terminal(s.calc.printed));
  }
  say(s.checker, `${s.final}\nTERMINATE`);
  return JSON.stringify({ question: s.ask, is_correct: false, history: turns }, null, 2);
}

/** The scenario as an otrace JSONL trace: a lead delegates the reading and the calculation, a checker answers. */
function otraceJsonl(s: Scenario): string {
  const lines: Record<string, unknown>[] = [{ trace_id: `derivation-${s.reader}`, system: 'known-answer test' }];
  let t = 0;
  let last: string | undefined;
  const add = (e: Record<string, unknown>) => {
    if (s.noise && last) lines.push({ id: `hb${t}`, t: t++, type: 'message', agent: 'monitor', content: noiseTurn(t) });
    lines.push({ t: t++, ...e, causes: (e.causes as string[] | undefined) ?? (last ? [last] : undefined) });
    last = e.id as string;
  };
  add({ id: 'ask', type: 'message', agent: 'user', from: 'user', to: 'lead', content: s.ask });
  add({ id: 'd1', type: 'delegate', agent: 'lead', to: s.reader, content: 'Read the data file and tell me the figures.' });
  add({ id: 'c1', type: 'tool_call', agent: s.reader, tool: 'python', content: s.read });
  add({ id: 'r1', type: 'tool_result', agent: s.reader, tool: 'python', content: s.output, causes: ['c1'] });
  add({ id: 'misread', type: 'return', agent: s.reader, to: 'lead', content: s.misread });
  add({ id: 'd2', type: 'delegate', agent: 'lead', to: s.calculator, content: 'Compute the answer from these figures.' });
  if ('prose' in s.calc) add({ id: 'calc', type: 'return', agent: s.calculator, to: 'lead', content: s.calc.prose });
  else {
    add({ id: 'calc', type: 'tool_call', agent: s.calculator, tool: 'python', content: s.calc.code });
    add({ id: 'r2', type: 'tool_result', agent: s.calculator, tool: 'python', content: s.calc.printed, causes: ['calc'] });
    add({ id: 'ret', type: 'return', agent: s.calculator, to: 'lead', content: `The script printed ${s.calc.printed}.` });
  }
  add({ id: 'final', type: 'message', agent: s.checker, to: 'user', content: s.final });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

for (const s of SCENARIOS) {
  test(`blame through a derivation, Who&When log: the misread figure, not the correct calculation from it (${s.name})`, () => {
    const text = whoAndWhen(s);
    const loaded = loadTrace(text, 'derivation.json');
    assert.equal(loaded.format, 'who-and-when');
    const a = analyzeTrace(loaded, { outcome: 'failure' });
    const history = JSON.parse(text).history as { name: string; content: string }[];
    const misread = history.findIndex((h) => h.content === s.misread);
    assert.equal(a.blame?.agent, s.reader, a.blame?.message);
    assert.equal(a.blame?.record, misread, a.blame?.message);
    assert.equal(a.blame?.basis, 'contrary_input', a.blame?.message);
    // the message says what was misread and that the answer was computed from it
    assert.match(a.blame!.message, /(1,520|321)\b.*(1,250|312)\b/);
    assert.match(a.blame!.message, /computed from it|derived from it/);
  });

  test(`blame through a derivation, otrace JSONL: the misread figure, not the correct calculation from it (${s.name})`, () => {
    const loaded = loadTrace(otraceJsonl(s), 'derivation.otrace.jsonl');
    assert.equal(loaded.problems.filter((p) => p.severity === 'error').length, 0, JSON.stringify(loaded.problems));
    const a = analyzeTrace(loaded, { outcome: 'failure' });
    assert.equal(a.blame?.event, 'misread', a.blame?.message);
    assert.equal(a.blame?.agent, s.reader, a.blame?.message);
    assert.equal(a.blame?.basis, 'contrary_input', a.blame?.message);
  });
}

test('a calculation from figures read right is not blamed as contrary to them: its result is another quantity', () => {
  const s = SCENARIOS[0];
  const right = { ...s, misread: s.misread.replace('1,520', '1,250'), calc: { prose: 'Revenue of the North region in Q3 = 1,250 units × $24 = $30,000.' }, final: 'I checked the multiplication: FINAL ANSWER: 30,000' };
  const a = analyzeTrace(loadTrace(otraceJsonl(right), 'derivation.otrace.jsonl'), { outcome: 'failure' });
  assert.notEqual(a.blame?.basis, 'contrary_input', a.blame?.message);
});

test('operands: the pair whose sum, difference, product or quotient gives the value, to the precision it is written with', () => {
  assert.deepEqual([...operandsOf('36480', ['1520', '24', '2023'])].sort(), ['1520', '24']);
  assert.deepEqual([...operandsOf('66.9', ['321', '4.8'])].sort(), ['321', '4.8'], '321 / 4.8 = 66.875, written 66.9');
  assert.deepEqual([...operandsOf('201', ['300', '99'])].sort(), ['300', '99']);
  assert.deepEqual([...operandsOf('66.86', ['321', '4.8'])], [], '66.875 is not 66.86 to two decimals');
  assert.deepEqual([...operandsOf('42.36', ['15.8', '37.3'])].sort(), ['15.8', '37.3'], 'a share in percent: 100 × 15.8 / 37.3');
  assert.deepEqual([...operandsOf('500', ['1520', '24'])], []);
  assert.deepEqual([...operandsOf('Rhine', ['12', '3'])], [], 'a name has no operands');
  assert.equal(canonicalValue('36,480'), '36480');
  assert.equal(canonicalValue('4.80'), '4.8');
  assert.equal(canonicalValue('12.0'), '12');
  assert.equal(canonicalValue('1,5'), '1,5', 'not a thousands separator');
});

test('a derivation of two calculations is followed back to the figure misread before both (the answer never states it)', () => {
  const lines = [
    { id: 'ask', type: 'message', agent: 'user', from: 'user', content: 'What share of the 2023 budget of Lakeside town went to schools, in percent?' },
    { id: 'c1', type: 'tool_call', agent: 'reader', tool: 'fetch', content: 'https://lakeside.example/budget/2023/8841/report.pdf' },
    { id: 'r1', type: 'tool_result', agent: 'reader', tool: 'fetch', causes: ['c1'], content: 'Lakeside budget 2023. School spending: 18.5 million dollars. Roads spending: 6.5 million dollars. Other spending: 15 million dollars.' },
    { id: 'misread', type: 'message', agent: 'reader', causes: ['r1'], content: 'Lakeside budget 2023: school spending 18.5 million dollars, roads spending 5.6 million dollars, other spending 15 million dollars.' },
    { id: 'sum', type: 'message', agent: 'adder', causes: ['misread'], content: 'Schools and roads together: 18.5 + 5.6 = 24.1 million; with the rest, 24.1 + 15 = 39.1 million in total.' },
    { id: 'share', type: 'message', agent: 'divider', causes: ['sum'], content: 'School share of the total = 18.5 / 39.1 = 47.31 percent.' },
    { id: 'final', type: 'message', agent: 'lead', causes: ['share'], content: 'FINAL ANSWER: 47.31' },
  ];
  const text = lines.map((l, t) => JSON.stringify({ t, ...l })).join('\n');
  const a = analyzeTrace(loadTrace(text, 'two-steps.otrace.jsonl'), { outcome: 'failure' });
  assert.equal(a.blame?.event, 'misread', a.blame?.message);
  assert.equal(a.blame?.basis, 'contrary_input');
  // the rule's record on labelled runs goes with it: a differing value is often another fact, not a misreading
  assert.equal(a.blame?.message, "reader's message at t=3: passed on 5.6 where its input r1 gave 6.5; the final answer (final) was derived from it, through sum, share (a value that differs from an input named the labelled step in 3 of 10 Who&When runs, the agent in 8 of 10)");
  // a hypothesis, not an error the trace records: a warning that says how often such a blame was right
  const finding = a.findings.find((f) => f.kind === 'blame');
  assert.equal(finding?.severity, 'warning');
  assert.equal(finding?.inline, '⚠ possible decisive error (30%)');
});
