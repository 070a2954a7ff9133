/**
 * Rules for the MAST failure modes 1.3 (step repetition), 1.5 (unaware of termination conditions)
 * and 3.1 (premature termination), on small hand-built traces: one positive and one negative each.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { findLoops } from '../../../src/analysis/loops';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

type Ev = Parameters<typeof traceOf>[0][number];

const CRITIQUES = [
  'Highest priority comment: the game lacks castling, en passant and pawn promotion; the checkmate and stalemate functions always return false.',
  'Highest priority comment: castling, en passant and pawn promotion are still missing, and the checkmate and stalemate functions always return false.',
  'Highest priority comment: the implementation lacks castling, en passant and pawn promotion; checkmate and stalemate detection always return false.',
];
const OTHER_CRITIQUES = [
  'Highest priority comment: the board printing reverses ranks and files; columns should be labelled a through h from left to right.',
  'Highest priority comment: input parsing crashes on empty lines, wrap the parser with validation and a helpful retry prompt.',
  'Highest priority comment: the move history is never saved, add persistence to a json file so games survive restarts.',
];

/** A review/fix cycle: reviewer comments, programmer revises (code), `cycles` times. */
function reviewCycles(comments: string[], code: (k: number) => string): Ev[] {
  const events: Ev[] = [{ id: 'task', type: 'message', agent: 'user', to: 'Programmer', content: 'Write a terminal chess game for two players.' }];
  comments.forEach((c, k) => {
    events.push({ id: `rev${k}`, type: 'message', agent: 'Code Reviewer', to: 'Programmer', content: c, tokens: 10 });
    events.push({ id: `fix${k}`, type: 'message', agent: 'Programmer', to: 'Code Reviewer', content: `main.py\n\`\`\`python\n${code(k)}\n\`\`\``, tokens: 20 });
  });
  return events;
}
const CODE =
  'from board import Board\nfrom moves import read_move, legal_moves\n\ndef main():\n    board = Board()\n    while not board.is_over():\n        move = read_move(input("white or black to move: "))\n        if move in legal_moves(board):\n            board.apply(move)\n        print_board(board)\n    print("game over, winner:", board.winner())';

test('1.3 near-duplicate steps: a reviewer restating the same critique three times is a loop', () => {
  const loops = findLoops(new TraceIndex(traceOf(reviewCycles(CRITIQUES, (k) => `${CODE}\n# revision ${k}`)))).filter((l) => l.kind === 'repeated_sequence' && l.match === 'similar');
  assert.equal(loops.length, 1);
  assert.deepEqual(loops[0].events, ['rev0', 'rev1', 'rev2']);
  assert.equal(loops[0].repetitions, 3);
  assert.equal(loops[0].tokens, 20);
  assert.match(loops[0].message, /^Code Reviewer repeated nearly the same step to Programmer 3 times, in mostly the same words/);
});

test('1.3 near-duplicate steps: three different critiques and changing code are no loop', () => {
  const loops = findLoops(new TraceIndex(traceOf(reviewCycles(OTHER_CRITIQUES, (k) => `${CODE}\n# revision ${k}`))));
  assert.deepEqual(loops, []);
});

test('1.3 near-duplicate steps: the same code produced again unchanged is a loop from two occurrences', () => {
  const loops = findLoops(new TraceIndex(traceOf(reviewCycles(OTHER_CRITIQUES.slice(0, 2), () => CODE)))).filter((l) => l.kind === 'repeated_sequence' && l.match === 'similar');
  assert.equal(loops.length, 1);
  assert.deepEqual(loops[0].events, ['fix0', 'fix1']);
  assert.equal(loops[0].message, 'Programmer produced the same code unchanged to Code Reviewer 2 times, 20 tokens; the trace ended inside it');
});

test('1.3 near-duplicate steps: a delegated conversation opening with the same assignment is not a repeated step', () => {
  const events: Ev[] = [];
  for (let k = 0; k < 3; k++) {
    events.push({ id: `d${k}`, type: 'delegate', agent: 'Chain', to: 'Programmer', content: 'CodeReview: Code Reviewer <-> Programmer' });
    events.push({ id: `p${k}`, type: 'message', agent: 'Programmer', to: 'Code Reviewer', content: 'According to the task and our software design, review the source codes below and give your highest priority comment on them.' });
    events.push({ id: `r${k}`, type: 'message', agent: 'Code Reviewer', to: 'Programmer', content: OTHER_CRITIQUES[k] });
  }
  assert.deepEqual(findLoops(new TraceIndex(traceOf(events))).filter((l) => l.kind === 'repeated_sequence' && l.match === 'similar'), []);
});

/** The review cycles as ChatDev runs them: each one-turn phase ends at its turn limit (a max_turns stop). */
function phasedCycles(comments: string[]): Ev[] {
  const out: Ev[] = [];
  for (const e of reviewCycles(comments, (k) => `${CODE}\n# revision ${k}`)) {
    out.push(e);
    if (e.id.startsWith('fix')) out.push({ id: `${e.id}.stop`, type: 'stop', agent: 'Chain', reason: 'max_turns', scope: 'phase' } as Ev);
  }
  return out;
}

test('1.5 no_stop: a limit cut a repeated cycle in which the agents never concluded', () => {
  const stops = analyzeTrace(traceOf(phasedCycles(CRITIQUES))).stops;
  assert.deepEqual(stops.map((s) => s.finding), ['ok', 'ok', 'no_stop']);
  assert.equal(stops[2].evidence[0], 'a max_turns limit ended a repeated cycle (repeated_sequence, 3 repetitions) in which the agents never concluded');
  assert.deepEqual(stops[2].wasted, { events: 2, tokens: 20, seconds: 0 });
});

test('1.5 no_stop: the same cycle is not cut by the limit when the reviewer concluded', () => {
  const events = phasedCycles(CRITIQUES);
  events.splice(events.length - 1, 0, { id: 'ok', type: 'message', agent: 'Code Reviewer', to: 'Programmer', content: '<INFO> Finished' });
  const stops = analyzeTrace(traceOf(events)).stops;
  assert.deepEqual(stops.map((s) => s.finding), ['ok', 'ok', 'ok']);
});

test('1.5 delayed: an impasse said again while the proxy keeps asking to continue (MAST example)', () => {
  const events: Ev[] = [
    { id: 'q', type: 'message', agent: 'mathproxyagent', content: 'Monica has ribbon for gift bows. How many bows can she make?' },
    { id: 'a0', type: 'message', agent: 'assistant', content: "In the current problem, I don't have enough information to solve it. Could you provide the ribbon length?" },
    { id: 'c0', type: 'message', agent: 'mathproxyagent', content: 'Continue. Please keep solving the problem until you need to query.' },
    { id: 'a1', type: 'message', agent: 'assistant', content: "I'm sorry, but I really need more information to solve this problem. It can't be solved with the current data." },
    { id: 'c1', type: 'message', agent: 'mathproxyagent', content: 'Continue. Please keep solving the problem until you need to query.' },
    { id: 'end', type: 'stop', agent: 'chat', reason: 'max_turns' },
  ];
  const stop = analyzeTrace(traceOf(events)).stops[0];
  assert.deepEqual(stop.modes, ['no_stop', 'delayed']);
  assert.equal(stop.done_at, 'a0');
  assert.equal(stop.done_basis, 'impasse');
  assert.ok(stop.evidence.includes('a termination signal (impasse) at a0 was repeated 2 times while the exchange went on'));
});

test('1.5 delayed: one impasse answered with the missing data is no ignored signal', () => {
  const events: Ev[] = [
    { id: 'q', type: 'message', agent: 'mathproxyagent', content: 'Monica has ribbon for gift bows. How many bows can she make?' },
    { id: 'a0', type: 'message', agent: 'assistant', content: "I don't have enough information to solve it. Could you provide the ribbon length?" },
    { id: 'c0', type: 'message', agent: 'mathproxyagent', content: 'The ribbon is 36 inches and each bow uses 4 inches.' },
    { id: 'a1', type: 'message', agent: 'assistant', content: '36 / 4 = 9, so she can make \\boxed{9} bows.' },
    { id: 'end', type: 'stop', agent: 'assistant', reason: 'task_complete' },
  ];
  const stop = analyzeTrace(traceOf(events)).stops[0];
  assert.equal(stop.finding, 'ok');
});

test('3.3 verification: the run ended while the reviewer last raised issues: a verification finding, not a premature stop', () => {
  const events = [...reviewCycles(OTHER_CRITIQUES.slice(0, 2), (k) => `${CODE}\n# revision ${k}`), { id: 'stop', type: 'stop', agent: 'Chain', reason: 'task_complete' } as Ev];
  const a = analyzeTrace(traceOf(events));
  assert.equal(a.stops.at(-1)!.modes.includes('premature'), false);
  assert.deepEqual(
    a.verification.map((v) => [v.kind, v.event, v.message]),
    [['uncleared_review', 'rev1', "verification: Code Reviewer's last review (rev1) raised issues that no later review of theirs cleared (MAST 3.3)"]],
  );
});

test('3.2 verification: the last check failed and the agent then said it succeeded ("All tests pass. Done!", "The build succeeded."); a sentence that admits the failure is no claim', () => {
  const run = (claim: string, tool = 'bash', command = 'npm test', output = '1 failed, 12 passed'): ReturnType<typeof analyzeTrace> =>
    analyzeTrace(
      traceOf([
        { id: 'u', type: 'message', agent: 'user', content: 'fix the failing test' },
        { id: 'c', type: 'tool_call', agent: 'main', tool, content: command },
        { id: 'r', type: 'tool_result', agent: 'main', tool, content: output, is_error: true } as Ev,
        { id: 'm', type: 'message', agent: 'main', content: claim },
        { id: 's', type: 'stop', agent: 'main', reason: 'task_complete', scope: 'turn' } as Ev,
      ]),
    );
  for (const [claim, tool, command, output] of [
    ['All tests pass. Done!', 'bash', 'npm test', '1 failed, 12 passed'],
    ['The build succeeded.', 'run_shell_command', 'make', 'make: *** [all] Error 2'],
  ])
    assert.deepEqual(run(claim, tool, command, output).verification.map((v) => [v.kind, v.event, v.evidence_events]), [['failing_check_ignored', 'r', ['m']]], claim);
  for (const admitted of ['The tests still fail; I could not fix the last one.', 'One test is failing: the fix did not work.', 'I was unable to get the build to pass.', 'Done. But two tests still fail.'])
    assert.deepEqual(run(admitted).verification, [], admitted);
});

test('3.3 verification: no finding when the reviewer approved the last revision', () => {
  const events = reviewCycles(OTHER_CRITIQUES.slice(0, 2), (k) => `${CODE}\n# revision ${k}`);
  events.push({ id: 'ok', type: 'message', agent: 'Code Reviewer', to: 'Programmer', content: 'Looks good, no further comments. <INFO> Finished' });
  events.push({ id: 'stop', type: 'stop', agent: 'Chain', reason: 'task_complete' });
  const a = analyzeTrace(traceOf(events));
  assert.equal(a.stops.at(-1)!.modes.includes('premature'), false);
  assert.deepEqual(a.verification, []);
});

test('3.1 premature: the run ended right after an agent said it cannot go on without information (weak evidence: low confidence)', () => {
  const events: Ev[] = [
    { id: 'q', type: 'message', agent: 'planner', to: 'solver', content: 'Find the API usage for last month and report the total.' },
    { id: 'a', type: 'message', agent: 'solver', to: 'planner', content: 'I cannot proceed: I need the API token to read the usage report.' },
    { id: 'end', type: 'stop', agent: 'planner', reason: 'task_complete' },
  ];
  const a = analyzeTrace(traceOf(events));
  const stop = a.stops[0];
  assert.equal(stop.finding, 'premature');
  assert.equal(stop.confidence, 'low');
  assert.equal(a.findings.find((f) => f.kind === 'stop')?.severity, 'info');
  assert.deepEqual(stop.evidence, ['the run ended right after solver said it could not go on without more information (a)']);
});

test('3.1 premature: no finding when the last output is the answer', () => {
  const events: Ev[] = [
    { id: 'q', type: 'message', agent: 'planner', to: 'solver', content: 'Find the API usage for last month and report the total.' },
    { id: 'a', type: 'message', agent: 'solver', to: 'planner', content: 'I cannot proceed without the token; reading the public dashboard instead.' },
    { id: 'b', type: 'message', agent: 'solver', to: 'planner', content: 'The total API usage last month was 12,400 calls.' },
    { id: 'end', type: 'stop', agent: 'planner', reason: 'task_complete' },
  ];
  const stop = analyzeTrace(traceOf(events)).stops[0];
  assert.equal(stop.finding, 'ok');
});
