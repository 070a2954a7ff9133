/**
 * Side-channel records of a Claude Code session: state snapshots the harness appends between the
 * conversation's records (`mode`, `permission-mode`, `ai-title`, `bridge-session`, `atis-latch`, …;
 * see SIDE_RECORD_TYPES in model.ts), re-appended whenever the state changes (a file can hold a
 * hundred `mode` records). They are session metadata: counted by type, the last value of the ones
 * that name a state kept (`metadata.session_state`), never an event and never a warning.
 *
 * A record of a type otrace does not know yet is read the same way when it carries no conversation
 * (no `message`): counted, and said in one info line for the file (which types, how many). One that
 * carries a `message` holds content otrace cannot show: the caller counts it as not shown (warning).
 *
 * Pure: imports nothing from `vscode`.
 */
import { isObject, num, str } from '../jsonl-records';
import type { Origin, Problem } from '../../model';
import type { Json } from './model';

/** What the side-channel records of a session said. */
export interface SideRecords {
  /** Records of the known side-channel types, by type. */
  counts: Record<string, number>;
  /** Records of types otrace does not know, read as metadata, by type. */
  unknown: Record<string, number>;
  /** The last value of each state they name: `mode`, `permission_mode`, `ai_title`, `custom_title`, `agent_name`, `bridge_session_id`, `pull_requests`. */
  state: Record<string, unknown>;
  /** Where the first record of an unknown type is (positions the info). */
  first?: Origin;
}

/** Fields of the known types that name a state: record type -> [field, state key]. */
const STATE_FIELDS: Record<string, [string, string]> = {
  mode: ['mode', 'mode'],
  'permission-mode': ['permissionMode', 'permission_mode'],
  'ai-title': ['aiTitle', 'ai_title'],
  'custom-title': ['customTitle', 'custom_title'],
  'agent-name': ['agentName', 'agent_name'],
  'bridge-session': ['bridgeSessionId', 'bridge_session_id'],
};

/**
 * Reads a record of a type without a handler as metadata. @param known true for a known side-channel
 * type. @returns false when it is no metadata (an unknown type that carries a `message`, or a record
 * without a type): the caller counts it as not shown.
 */
export function noteSideRecord(side: SideRecords, type: string, v: Json, origin: Origin, known: boolean): boolean {
  if (!known) {
    if (type === '(none)' || isObject(v.message)) return false;
    side.unknown[type] = (side.unknown[type] ?? 0) + 1;
    side.first ??= origin;
    return true;
  }
  side.counts[type] = (side.counts[type] ?? 0) + 1;
  const field = STATE_FIELDS[type];
  const value = field ? str(v[field[0]]) : undefined;
  if (field && value !== undefined) side.state[field[1]] = value;
  if (type === 'pr-link') {
    const n = num(v.prNumber);
    const repo = str(v.prRepository);
    if (n !== undefined && repo) {
      const pr = `${repo}#${n}`;
      const list = Array.isArray(side.state.pull_requests) ? (side.state.pull_requests as string[]) : [];
      if (!list.includes(pr)) side.state.pull_requests = [...list, pr];
    }
  }
  return true;
}

/** The info about records of unknown types read as metadata (one line for the file), or undefined when there were none. */
export function unknownTypesProblem(side: SideRecords): Problem | undefined {
  const kinds = Object.entries(side.unknown).sort((a, b) => b[1] - a[1]);
  if (!kinds.length) return undefined;
  const total = kinds.reduce((n, [, c]) => n + c, 0);
  const at = side.first;
  return {
    severity: 'info',
    message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} type${kinds.length > 1 ? 's' : ''} otrace does not know yet, with no conversation in ${total > 1 ? 'them' : 'it'}, read as session metadata: ${kinds.map(([k, c]) => `${k} ${c}`).join(', ')}`,
    range: at?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    ...(at?.file ? { file: at.file } : {}),
  };
}
