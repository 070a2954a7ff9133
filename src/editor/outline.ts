/**
 * The Outline of a trace file: one symbol per agent lane, with its events as children (in file
 * order), so the Outline view, breadcrumbs and "Go to Symbol" (Ctrl+Shift+O) navigate the trace.
 */
import * as vscode from 'vscode';
import { canonicalType } from '../trace/schema';
import { toRange, type TraceSessions } from './trace-sessions';

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

/** Provides lanes and events as document symbols for trace files opened as text. */
export class TraceOutline implements vscode.DocumentSymbolProvider {
  constructor(private readonly sessions: TraceSessions) {}

  async provideDocumentSymbols(document: vscode.TextDocument): Promise<vscode.DocumentSymbol[]> {
    const loaded = (await this.sessions.forDocument(document))?.loaded;
    if (!loaded) return [];
    const lanes = new Map<string, vscode.DocumentSymbol>();
    for (const [i, event] of loaded.trace.events.entries()) {
      const origin = loaded.eventOrigins[i];
      if (!origin || origin.file) continue; // events of other files (sub-agent transcripts) are not in this document
      const range = toRange(origin.range);
      const type = canonicalType(event.type);
      const detail = type === 'stop' ? `stop: ${event.reason}` : event.to ? `${event.type} → ${event.to}` : event.tool ? `${event.type} ${event.tool}` : event.type;
      const symbol = new vscode.DocumentSymbol(event.id, `${detail} · t=${event.t}s`, KIND[type] ?? vscode.SymbolKind.Object, range, range);
      let lane = lanes.get(event.agent);
      if (!lane) {
        lane = new vscode.DocumentSymbol(event.agent, 'agent', vscode.SymbolKind.Class, range, new vscode.Range(range.start, range.start));
        lanes.set(event.agent, lane);
      }
      lane.children.push(symbol);
      lane.range = lane.range.union(range);
    }
    return [...lanes.values()];
  }
}
