/**
 * The Outline of a trace file (or of one of its sub-agent files): one symbol per agent lane, with
 * its events as children (in file order, each named by the same readable label the editor shows on
 * its record: "user: Work on bead…", "Bash: npm test ✗ exit 2", "stop: task complete", with its
 * time and id beside), so the Outline view, breadcrumbs and "Go to Symbol" (Ctrl+Shift+O) navigate
 * the trace. The engine lists the lanes and events of the file and labels them
 * (src/engine/record-labels.ts); a lane interleaved with others spans its first record only, so
 * that breadcrumbs and sticky scroll never name an agent on another agent's lines. At most `otrace.outline.maxEvents` events are listed (the first in
 * file order): VS Code asks again on every change of a growing file, and 86,000 symbols stalled the
 * extension host for seconds each time (breadcrumbs and sticky scroll ask too).
 */
import * as vscode from 'vscode';
import { toRange, type OpenTraces } from '../open-traces';
import { plainText, symbolText } from '../../shared/untrusted-text';

/** Symbol kinds by canonical event type, for their icons. */
const KIND: Record<string, vscode.SymbolKind> = {
  spawn: vscode.SymbolKind.Constructor,
  delegate: vscode.SymbolKind.Event,
  message: vscode.SymbolKind.String,
  tool_call: vscode.SymbolKind.Function,
  tool_result: vscode.SymbolKind.Variable,
  return: vscode.SymbolKind.Method,
  aggregate: vscode.SymbolKind.Array,
  reward: vscode.SymbolKind.Number,
  stop: vscode.SymbolKind.Key,
  orchestrator_decision: vscode.SymbolKind.Operator,
};

/** Most events listed (setting `otrace.outline.maxEvents`, default 5,000; the first in file order). */
function maxEvents(): number {
  const n = vscode.workspace.getConfiguration('otrace').get<number>('outline.maxEvents', 5000);
  return typeof n === 'number' && n >= 0 ? Math.floor(n) : 5000;
}

/** Provides lanes and events as document symbols for trace files opened as text. */
export class TraceOutline implements vscode.DocumentSymbolProvider {
  constructor(private readonly sessions: OpenTraces) {}

  async provideDocumentSymbols(document: vscode.TextDocument): Promise<vscode.DocumentSymbol[]> {
    await this.sessions.forDocument(document);
    const found = this.sessions.containing(document.uri);
    const lanes = found && (await this.sessions.engine.outline(found.summary.key, found.summary.stamp, found.file, maxEvents()));
    if (!lanes) return [];
    return lanes.map((lane) => {
      const first = toRange(lane.first).start;
      const what = lane.agents === undefined ? 'agent' : plainText`${lane.agents.toLocaleString('en-US')} agents folded`;
      // a lane whose events are not all listed (otrace.outline.maxEvents) says how many it has
      const count = lane.events.length < lane.count ? ` · ${lane.count.toLocaleString('en-US')} ${lane.count === 1 ? 'event' : 'events'}, ${lane.events.length.toLocaleString('en-US')} listed` : '';
      const symbol = new vscode.DocumentSymbol(symbolText`${lane.agent}`, symbolText`${what}${count}`, vscode.SymbolKind.Class, toRange(lane.range), new vscode.Range(first, first));
      symbol.children = lane.events.map((e) => {
        const range = toRange(e.range);
        // Named by what happened (ids are uuids); going to it puts the cursor at the record's start
        // and selects nothing (a selected record is replaced by the next key typed).
        return new vscode.DocumentSymbol(symbolText`${e.detail}`, symbolText`${e.when} · ${e.id}`, KIND[e.kind] ?? vscode.SymbolKind.Object, range, new vscode.Range(range.start, range.start));
      });
      return symbol;
    });
  }
}
