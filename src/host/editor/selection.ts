/**
 * The one selection shared by the trace editor and the graph: the selected event of a trace
 * session. The text cursor and the graph's selected node both write it and both follow it; a
 * change that repeats the current selection is dropped, so neither side echoes the other.
 */
import * as vscode from 'vscode';

/** Who moved the selection (a view does not follow its own changes). */
export type SelectionSource = 'editor' | 'graph' | 'command';

/** The selected event: the session key (trace URI string) and the event's index in the trace. */
export interface TraceSelection {
  trace: string;
  index: number;
  source: SelectionSource;
}

/** Holds the current selection and tells every view when it moves. */
export class SelectionService implements vscode.Disposable {
  private current: TraceSelection | undefined;
  private readonly changed = new vscode.EventEmitter<TraceSelection>();
  /** Fires when another event (or another trace) is selected. */
  readonly onDidChange = this.changed.event;

  /** The selection, if any. */
  get selection(): TraceSelection | undefined {
    return this.current;
  }

  /** Selects an event; does nothing when it is already selected (no echo between views). Returns true when it moved. */
  select(trace: string, index: number, source: SelectionSource): boolean {
    if (this.current && this.current.trace === trace && this.current.index === index) return false;
    this.current = { trace, index, source };
    this.changed.fire(this.current);
    return true;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
