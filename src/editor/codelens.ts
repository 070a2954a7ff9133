/**
 * CodeLens in trace files: on stops and loops (`Explain`: the finding in the graph's details pane)
 * and on spawns (`agent: <name> · N events`: that lane in the graph). In a prompt file that an open
 * trace points at: `used by 3 events in demo.otrace.jsonl`. Titles escape `$(icon)` syntax: names
 * come from the trace. The `otrace.codeLens.enabled` setting turns them off.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { canonicalType } from '../trace/schema';
import type { TraceSnapshot } from '../session/snapshot';
import { escapeIcons } from './markdown';
import { toRange, type TraceSessions } from './trace-sessions';

/** Lenses of stops, loops and spawns in a trace file or one of its sub-agent files. */
export class TraceCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly sessions: TraceSessions) {
    sessions.onDidChange(() => this.changed.fire());
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('otrace.codeLens')) this.changed.fire();
    });
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!enabled()) return [];
    await this.sessions.forDocument(document);
    const found = this.sessions.containing(document.uri);
    if (!found) return [];
    const { snapshot, file } = found;
    const inFile = (i: number) => (snapshot.loaded.eventOrigins[i]?.file ?? '') === file;
    const lenses: vscode.CodeLens[] = [];
    const at = (i: number) => toRange(snapshot.loaded.eventOrigins[i]!.range).start;
    snapshot.findings.forEach((f, k) => {
      if ((f.kind !== 'stop' && f.kind !== 'loop') || !inFile(f.events[0])) return;
      const title = f.kind === 'loop' ? `${f.inline}: ${f.message}` : `${f.inline}${f.mode === 'ok' ? '' : ` — ${f.message}`}`;
      lenses.push(lens(at(f.events[0]), `${escapeIcons(clip(title, 110))} — Explain`, 'otrace.explainFinding', { trace: snapshot.key, finding: k }));
    });
    const counts = laneCounts(snapshot);
    snapshot.loaded.trace.events.forEach((e, i) => {
      if (canonicalType(e.type) !== 'spawn' || !e.to || !inFile(i)) return;
      lenses.push(lens(at(i), `agent: ${escapeIcons(clip(e.to, 60))} · ${counts.get(e.to) ?? 0} event${counts.get(e.to) === 1 ? "" : "s"}`, 'otrace.showLane', { trace: snapshot.key, agent: e.to }));
    });
    return lenses;
  }
}

/** Lenses in prompt files that open traces name in `source.path`. */
export class PromptCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly sessions: TraceSessions) {
    sessions.onDidChange(() => this.changed.fire());
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!enabled() || document.uri.scheme !== 'file') return [];
    const lenses: vscode.CodeLens[] = [];
    for (const snapshot of this.sessions.all()) {
      const users = promptUsers(snapshot).get(document.uri.fsPath);
      if (!users) continue;
      const first = Math.min(...users.map((u) => u.line));
      const name = path.basename(snapshot.path);
      lenses.push(
        lens(
          new vscode.Position(Math.max(0, first - 1), 0),
          `used by ${users.length} event${users.length === 1 ? '' : 's'} in ${escapeIcons(name)}`,
          'otrace.showEvents',
          { trace: snapshot.key, indices: users.map((u) => u.index) },
        ),
      );
    }
    return lenses;
  }
}

const promptCache = new WeakMap<TraceSnapshot, Map<string, { index: number; line: number }[]>>();

/** Absolute prompt path -> events naming it in `source` (with the line they point at, 1-based). */
function promptUsers(snapshot: TraceSnapshot): Map<string, { index: number; line: number }[]> {
  let map = promptCache.get(snapshot);
  if (map) return map;
  map = new Map();
  snapshot.loaded.trace.events.forEach((e, index) => {
    if (!e.source?.path || /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(e.source.path)) return;
    const file = path.resolve(path.dirname(snapshot.path), e.source.path);
    map!.set(file, [...(map!.get(file) ?? []), { index, line: e.source.line ?? 1 }]);
  });
  promptCache.set(snapshot, map);
  return map;
}

function laneCounts(snapshot: TraceSnapshot): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of snapshot.loaded.trace.events) counts.set(e.agent, (counts.get(e.agent) ?? 0) + 1);
  return counts;
}

function lens(at: vscode.Position, title: string, command: string, arg: unknown): vscode.CodeLens {
  return new vscode.CodeLens(new vscode.Range(at, at), { title, command, arguments: [arg] });
}

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function enabled(): boolean {
  return vscode.workspace.getConfiguration('otrace').get<boolean>('codeLens.enabled', true);
}
