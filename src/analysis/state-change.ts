/**
 * Which tool calls change the state the agents work on (files, installed packages): the stop
 * analysis asks whether a change was verified after it, and the loop analysis whether a repeated
 * call could have seen something new.
 */
import { carriedPositions } from './carried-sweep';
import { upperBound } from './sorted';
import { CHANGE_TOOL, VERIFY_TOOL } from './text';
import type { TraceIndex } from './trace-index';

/** Tool name -> whether it names a state change ({@link CHANGE_TOOL}); tools repeat, names are few. */
const changeTools = new Map<string, boolean>();

function toolChangesState(tool: string): boolean {
  let changes = changeTools.get(tool);
  if (changes === undefined) {
    changes = CHANGE_TOOL.test(tool);
    if (changeTools.size < 10_000) changeTools.set(tool, changes);
  }
  return changes;
}

/** A command line without its options (`--no-edit`, `-rf`, `--delete=x`): their words name no action of the call. */
function withoutOptions(text: string): string {
  // an option starts with a dash: a text without one is left as it is, without running the expression
  return text.includes('-') ? text.replace(COMMAND_OPTION, '$1') : text;
}

const COMMAND_OPTION = /(^|[\s"'])--?[A-Za-z][\w-]*(=\S*)?/g;

/**
 * True when the event at position `i` is a tool call that changes state: its tool names a change
 * (Edit, write_file, apply_patch...), or its arguments' head (200 characters, options left out)
 * names one as a command ({@link CHANGE_COMMAND}) and no check (`rm -rf dist` yes, `npm test --
 * --update` no, a code comment "move to the next cell" no). A call the user refused
 * (`call_status: denied`) changed nothing.
 */
export function isStateChange(index: TraceIndex, i: number): boolean {
  // memoized per position (an event's own fields decide): carried over a growing trace's appends (prefix-carry.ts)
  const memo = index.memo.stateChange;
  if (memo[i] === 0) memo[i] = changesState(index, i) ? 1 : 2;
  return memo[i] === 1;
}

/** {@link isStateChange}, asked. */
function changesState(index: TraceIndex, i: number): boolean {
  if (index.types[i] !== 'tool_call' || index.callStatusOf(i) === 'denied') return false;
  const tool = index.toolOf(i) ?? '';
  if (toolChangesState(tool)) return true;
  const content = withoutOptions(index.content(i).slice(0, 200));
  return CHANGE_COMMAND.test(content) && !VERIFY_TOOL.test(`${tool} ${content}`);
}

/**
 * A change word ({@link CHANGE_TOOL}) where a command or an action is named: at the start of the
 * arguments or of a line, after a shell separator (`;`, `&&`, `|`, `(`, `$(`, a backtick), a quote,
 * `[`, `,` or `:` (a command in JSON arguments: `{"cmd": "rm -rf dist"}`, `"command": "create"`),
 * after `sudo`, or after a package manager (`pip install`). Not a word of prose or of a code comment
 * ("the directions to move on the board" changed nothing).
 */
const COMMAND_START = /(?:^|[\n;&|(`"'[,:]|\$\()\s*(?:sudo\s+)?(?:(?:pip3?|npm|pnpm|yarn|uv|poetry|conda|apt(?:-get)?|brew|gem|cargo|go)\s+)?/;
const CHANGE_COMMAND = new RegExp(COMMAND_START.source + CHANGE_TOOL.source, 'i');

/** The positions of the index's state changes ({@link isStateChange}), ascending: one sweep per analysis, which a followed trace's carry keeps (each position's answer depends on its event alone). */
function changePositions(index: TraceIndex): readonly number[] {
  return carriedPositions(index, 'stateChanges', '', isStateChange);
}

/** The last state change in [from, to] that `keep` accepts: its position, or -1 (from the state changes' positions, not a walk over every event). */
export function lastChangeIn(index: TraceIndex, from: number, to: number, keep: (i: number) => boolean): number {
  const positions = changePositions(index);
  for (let k = upperBound(positions, to) - 1; k >= 0 && positions[k] >= from; k--) if (keep(positions[k])) return positions[k];
  return -1;
}

/** The first state change in [from, to] that `keep` accepts: its position, or -1. */
export function firstChangeAt(index: TraceIndex, from: number, to: number, keep: (i: number) => boolean): number {
  const positions = changePositions(index);
  for (let k = upperBound(positions, from - 1); k < positions.length && positions[k] <= to; k++) if (keep(positions[k])) return positions[k];
  return -1;
}
