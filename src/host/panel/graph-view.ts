/**
 * The graph webview of one trace file, used both by "Open Trace Graph to the Side" and by the
 * "Orchestration Trace Graph" custom editor: its page (graph-html.ts) gets the trace as soon as the
 * trace is read, with the first window; then the view routes the page's questions to the engine
 * and jumps from events back to the trace file and to the prompts that produced them.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { messageText } from '../../shared/untrusted-text';
import { showInVisibleEditors } from '../editor/editor-sync';
import type { SelectionService } from '../editor/selection';
import { showEventRecord } from '../editor/source-command';
import type { OpenTraces } from '../open-traces';
import type { GraphCommand, HostMessage, WebviewMessage, WindowRequest } from '../../shared/protocol';
import type { SessionSummary } from '../../engine/summary';
import { markStart, markStartAt, reportPainted } from '../start-report';
import { logError, logged } from '../log';
import { lastGraphSize, rememberGraphSize } from './graph-size';
import { graphHtml, graphWebviewOptions } from './graph-html';
import { graphPanelTitle } from './panel-title';

/**
 * Host messages that name an event or finding of the shown snapshot, before they are stamped with it.
 * showLane names an agent, and may carry its events in the snapshot they were found in (`at`).
 */
type Unstamped = { type: 'select'; index: number } | { type: 'explain'; finding: number } | { type: 'showLane'; agent: string; at?: AgentEvents };

/** An agent's earliest and latest events (indices) in the snapshot `stamp`. */
export interface AgentEvents {
  stamp: number;
  events: number[];
}

/** `message` with the stamp of the snapshot it names an event or finding of; showLane keeps its events only when found in that snapshot. */
function stamped(message: Unstamped, stamp: number): HostMessage {
  if (message.type !== 'showLane') return { ...message, stamp };
  const { agent, at } = message;
  return at && at.stamp === stamp ? { type: 'showLane', agent, stamp, events: at.events } : { type: 'showLane', agent };
}

/**
 * The webview messages that name an event of the page's snapshot (the engine's answers to `event`,
 * `find` and `window` are asked for a stamp and checked by the engine).
 */
const EVENT_MESSAGES: ReadonlySet<WebviewMessage['type']> = new Set(['selected', 'reveal', 'openSource', 'showContent', 'label']);

/** A message type the switch does not know: a compile error (`never`), and ignored at run time (a newer page). */
function unknownMessage(m: never): void {
  void m;
}

/** People's labels on a session's events, as the graph marks them (one text per labelled event). */
export type LabelSource = (summary: SessionSummary) => Promise<{ index: number; text: string }[]>;

/** Where the graph views read people's labels (src/host/editor/human-labels.ts), and the views open now. */
let labelSource: LabelSource | undefined;
const openViews = new Set<GraphView>();

/** True when a graph view open now shows the session of `key` (its trace's URI as a string). */
export function isShownInGraph(key: string): boolean {
  for (const view of openViews) if (view.traceUri.toString() === key) return true;
  return false;
}

/**
 * Lets every graph view mark the events people labelled: read from `source` with each trace sent,
 * and again when `changed` fires with the view's session key. Returns what stops it.
 */
export function markPeoplesLabels(source: LabelSource, changed: vscode.Event<string>): vscode.Disposable {
  labelSource = source;
  const listening = changed((key) => {
    for (const view of openViews) if (view.traceUri.toString() === key) void view.sendLabels();
  });
  return new vscode.Disposable(() => {
    listening.dispose();
    labelSource = undefined;
  });
}

/** Shows the trace at `uri` in `panel` and keeps it current while the panel lives. */
export class GraphView implements vscode.Disposable {
  private summary: SessionSummary | undefined;
  /** The session summary whose `trace` message is being made or was posted (posted without waiting for `ready`: VS Code holds it until the page has loaded). */
  private sentFor: SessionSummary | undefined;
  /** The session summary whose `trace` message was posted. */
  private shown: SessionSummary | undefined;
  /** `ready` messages so far: a second one means the page was loaded again and needs its trace again. */
  private pageLoads = 0;
  /** The overview the page holds (its trace and stamp): a trace grown since is posted as a delta against it. */
  private held: { uri: string; stamp: number } | undefined;
  /** The page's last window request (its view): the window sent with the next update is of that view, so the page asks for none. */
  private lastView: WindowRequest | undefined;
  /** Messages asked for before the webview had its trace (explain, showLane): sent right after it, stamped with its snapshot. */
  private queued: Unstamped[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  private locked = false;
  /** Files the shown trace was read from (its sub-agent files), as URI strings. */
  private files = new Set<string>();

  /**
   * @param onToggleLock given for side panels: the webview's Lock button calls it
   * @param earlier messages the page sent before this view took the panel (npm start's panel)
   */
  constructor(
    private readonly panel: vscode.WebviewPanel,
    private uri: vscode.Uri,
    extensionUri: vscode.Uri,
    private readonly sessions: OpenTraces,
    private readonly selection: SelectionService,
    private readonly onToggleLock?: () => void,
    earlier: WebviewMessage[] = [],
  ) {
    markStart('graph panel created');
    openViews.add(this);
    panel.webview.options = graphWebviewOptions(extensionUri);
    // A panel made while the extension loaded (npm start) has its page already.
    if (!panel.webview.html) panel.webview.html = graphHtml(panel.webview, extensionUri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: WebviewMessage) => void this.onMessage(m).catch(logged(`answering the graph's ${m.type} message`))),
      sessions.onDidChange((summary) => {
        if (summary.key === this.uri.toString()) {
          this.setSummary(summary);
          void this.send();
        }
      }),
      selection.onDidChange((s) => {
        if (s.source !== 'graph' && s.trace === this.uri.toString()) this.postWhenShown({ type: 'select', index: s.index });
      }),
      sessions.onDidStopGrowing((key) => {
        if (key === this.uri.toString()) this.post({ type: 'notGrowing' });
      }),
      sessions.onDidChangeGone((key) => {
        if (key === this.uri.toString()) this.showGone();
      }),
      sessions.onDidReadOn(({ key, part }) => {
        if (key === this.uri.toString()) this.post({ type: 'readProgress', bytes: part.bytes, of: part.of });
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    for (const m of earlier) void this.onMessage(m);
    void this.reload();
  }

  /** Frames a finding (index into the snapshot's findings) and explains it in the details pane. */
  explain(finding: number): void {
    this.postWhenShown({ type: 'explain', finding });
  }

  /** Frames one agent's lane; `at`: its events, framed instead when the graph folds the agent into a group lane. */
  showLane(agent: string, at?: AgentEvents): void {
    this.postWhenShown({ type: 'showLane', agent, ...(at ? { at } : {}) });
  }

  /** Posts now when the webview shows the trace, else right after it does; stamped with the snapshot it then shows. */
  private postWhenShown(message: Unstamped): void {
    const stamp = this.stamp;
    if (stamp !== undefined) this.post(stamped(message, stamp));
    else this.queued.push(message);
  }

  /**
   * The stamp of the snapshot the page shows, while it is the trace's latest: the only one whose
   * event indices this view acts on (undefined while another snapshot or trace is on its way).
   */
  private get stamp(): number | undefined {
    return this.shown && this.shown === this.summary ? this.shown.stamp : undefined;
  }

  /** Shows another trace in this panel (the panel that follows the active trace). */
  show(uri: vscode.Uri): void {
    if (uri.toString() === this.uri.toString()) return;
    const before = this.uri;
    this.uri = uri;
    this.letGo(before);
    this.summary = undefined;
    this.shown = undefined;
    this.queued = []; // asked for the trace shown before
    this.files = new Set();
    this.panel.title = graphPanelTitle(uri.fsPath, false, this.sessions.isGone(uri));
    this.post({ type: 'loading', title: path.basename(uri.fsPath) });
    void this.reload();
  }

  /** True when `uri` is one of the files the shown trace was read from (e.g. a Claude Code sub-agent file). */
  owns(uri: vscode.Uri): boolean {
    return this.files.has(uri.toString());
  }

  /** Marks the panel locked to its trace (or following the active one again). */
  setLocked(locked: boolean): void {
    this.locked = locked;
    this.panel.title = graphPanelTitle(this.uri.fsPath, locked, this.sessions.isGone(this.uri));
    this.post({ type: 'locked', locked });
  }

  /** Says in the tab's title and the page whether the trace file is gone from disk (deleted or moved): what was read stays shown. */
  private showGone(): void {
    const gone = this.sessions.isGone(this.uri);
    this.panel.title = graphPanelTitle(this.uri.fsPath, this.locked, gone);
    this.post({ type: 'fileGone', gone });
  }

  private setSummary(summary: SessionSummary): void {
    this.summary = summary;
    const files = new Set<string>([this.uri.toString()]);
    for (const file of summary.files) if (file) files.add(this.sessions.fileOf(summary, file).toString());
    this.files = files;
  }

  /** Runs a palette command (step, fit, play) in the graph. */
  command(command: GraphCommand): void {
    this.post({ type: 'command', command });
  }

  /** True while the panel is the active editor or view. */
  get active(): boolean {
    return this.panel.active;
  }

  /** The trace this view shows. */
  get traceUri(): vscode.Uri {
    return this.uri;
  }

  private async reload(): Promise<void> {
    const uri = this.uri;
    let summary: SessionSummary | undefined;
    try {
      summary = await this.sessions.forUri(uri);
      markStart('trace loaded');
    } catch (err) {
      logError(`reading ${uri.fsPath} for its graph`, err);
      void vscode.window.showErrorMessage(messageText`otrace: cannot read ${uri.fsPath}: ${(err as Error).message}`);
      return;
    }
    if (uri !== this.uri || !summary) return; // another trace was asked for meanwhile, or the load was cancelled
    this.setSummary(summary);
    void this.send();
  }

  /**
   * Posts the trace's overview with its first window (the whole axis at Fit for the graph area's
   * last known width), so the webview paints without asking back. Once per snapshot, unless
   * `again` (the page was loaded again). The overview comes as the engine's bytes (JSON and binary columns), passed on
   * unread: parsing and serializing the overview of a large trace here would hold the extension
   * host thread for seconds.
   */
  private async send(again = false): Promise<void> {
    const summary = this.summary;
    if (!summary || (summary === this.sentFor && !again)) return;
    this.sentFor = summary;
    const key = this.uri.toString();
    const current = () => key === this.uri.toString() && summary === this.summary;
    const held = this.held?.uri === key ? this.held.stamp : undefined;
    const view = held !== undefined && this.lastView?.stamp === held ? this.lastView : undefined;
    const graph = await this.sessions.engine.graphOverviewUpdate(key, path.basename(this.uri.fsPath), lastGraphSize().width, held, view).catch(logged(`asking the engine for the graph of ${this.uri.fsPath}`));
    if (!current()) return;
    if (!graph) {
      this.sentFor = undefined;
      return;
    }
    const growing = this.sessions.isGrowing(this.uri);
    const locked = this.onToggleLock ? this.locked : undefined;
    // a trace grown by an append: what changed against the overview the page holds (issue #30)
    if ('delta' in graph) this.post({ type: 'traceDelta', uri: key, locked, delta: graph.delta, first: graph.first, growing });
    else this.post({ type: 'traceJson', uri: key, locked, json: graph.json, columns: graph.columns, first: graph.first, growing });
    this.held = { uri: key, stamp: graph.stamp };
    // the page keeps its view over the update (drawn from `first`, nothing asked): the next update's window is of it again, to the end it reached
    if (view && graph.first) this.lastView = { ...view, stamp: graph.stamp, to: Math.max(view.to, graph.first.to) };
    this.shown = summary;
    // (a page loaded again, or a trace shown after its file went)
    if (this.sessions.isGone(this.uri)) this.post({ type: 'fileGone', gone: true });
    const s = this.selection.selection;
    if (s && s.trace === this.uri.toString()) this.post({ type: 'select', stamp: summary.stamp, index: s.index });
    for (const m of this.queued.splice(0)) this.post(stamped(m, summary.stamp));
    markStart('graph sent');
    void this.sendLabels();
  }

  /** Sends the labels people gave the events of the snapshot shown (after its trace; none without a source). */
  async sendLabels(): Promise<void> {
    const summary = this.shown;
    if (!labelSource || !summary || this.stamp !== summary.stamp) return;
    const labels = await labelSource(summary).catch(logged(`reading the labels of ${this.uri.fsPath} for the graph`));
    if (labels && this.stamp === summary.stamp) this.post({ type: 'humanLabels', stamp: summary.stamp, labels });
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    // An event of another snapshot than the one shown (a click on its way while the panel moved to
    // another trace, or to a new version of this one): its index would name another event here.
    if (EVENT_MESSAGES.has(m.type) && (m as { stamp?: unknown }).stamp !== this.stamp) return;
    switch (m.type) {
      case 'ready':
        markStart('webview ready');
        // The first page gets the trace posted before it was ready; a page loaded again needs it again.
        if (++this.pageLoads > 1) this.held = undefined;
        void this.send(this.pageLoads > 1);
        return;
      case 'wholeTrace':
        // the page does not hold the overview a delta was made against
        this.held = undefined;
        void this.send(true);
        return;
      // The graph's questions go to the engine as they are: this view only routes them.
      case 'window': {
        this.lastView = m.request;
        const window = await this.sessions.engine.graphWindow(this.uri.toString(), m.request);
        if (window) this.post({ type: 'window', window });
        return;
      }
      case 'event': {
        const node = await this.sessions.engine.graphEvent(this.uri.toString(), m.stamp, m.index);
        if (node) this.post({ type: 'event', stamp: m.stamp, node });
        return;
      }
      case 'find': {
        const indices = await this.sessions.engine.findEvents(this.uri.toString(), m.stamp, m.query);
        if (indices) this.post({ type: 'found', stamp: m.stamp, query: m.query, indices });
        return;
      }
      case 'reveal':
        await this.asked(() => this.reveal(m.index));
        return;
      case 'openSource':
        // Shown beside the graph; the keyboard stays in the graph (no graph action may send keys to a document).
        await this.asked(() => vscode.commands.executeCommand('otrace.goToSourcePrompt', { trace: this.uri.toString(), index: m.index, viewColumn: this.otherColumn(), preserveFocus: true }));
        return;
      case 'showContent':
        // The content opens in the other column; the keyboard stays in the graph, as for Show in Trace File.
        await this.asked(() => vscode.commands.executeCommand('otrace.showEventContent', { trace: this.uri.toString(), index: m.index, viewColumn: this.otherColumn(), preserveFocus: true }));
        return;
      case 'label':
        // the pick opens over the graph; the label goes to the sidecar, never the trace
        await vscode.commands.executeCommand('otrace.labelEvent', { trace: this.uri.toString(), index: m.index });
        return;
      case 'export':
        await this.saveExport(m.format, m.data);
        return;
      case 'toggleLock':
        this.onToggleLock?.();
        return;
      case 'selected':
        this.selection.select(this.uri.toString(), m.index, 'graph');
        if (m.reveal) void this.follow(m.index);
        return;
      case 'painted':
        rememberGraphSize(m.size);
        if (m.moments) markStartAt(m.moments);
        return reportPainted(this.uri.fsPath, m.events);
      default:
        return unknownMessage(m);
    }
  }

  /**
   * Opens the trace file (or the sub-agent file the event came from) at the event's record, beside
   * the graph, without the keyboard: keys pressed next still act on the graph (once they replaced
   * the selected record in the trace, and auto save wrote it). A click in the editor goes there.
   */
  private async reveal(index: number): Promise<void> {
    if (this.summary) await showEventRecord(this.sessions, this.summary, index, { viewColumn: this.otherColumn(), preserveFocus: true });
  }

  /** Asks where to save an export of the view and writes it; refuses the trace's own files. */
  private async saveExport(format: 'png' | 'svg', data: string): Promise<void> {
    const base = this.uri.path.replace(/\.[^./]*$/, '');
    const target = await vscode.window.showSaveDialog({
      defaultUri: this.uri.with({ path: `${base}.graph.${format}` }),
      filters: format === 'png' ? { 'PNG image': ['png'] } : { 'SVG image': ['svg'] },
      title: `Export the graph view as ${format.toUpperCase()}`,
    });
    if (!target) return;
    if (target.toString() === this.uri.toString() || this.owns(target) || !target.path.toLowerCase().endsWith(`.${format}`)) {
      void vscode.window.showErrorMessage(`otrace: an export is saved as a new .${format} file, never over a trace file.`);
      return;
    }
    const bytes = format === 'png' ? Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64') : Buffer.from(data, 'utf8');
    await vscode.workspace.fs.writeFile(target, bytes);
    // Say where it went (the dialog closes silently); Open shows it in VS Code's image or text view.
    void vscode.window.showInformationMessage(messageText`otrace: graph view saved as ${path.basename(target.path)} (${Math.round(bytes.length / 1024).toLocaleString('en-US')} KB)`, 'Open').then((choice) => {
      if (choice === 'Open') void vscode.commands.executeCommand('vscode.open', target);
    });
  }

  /**
   * "Follow in editor": the event's record shaded in the editors that show its file; when none does
   * (an event of a sub-agent file while the main file is shown), its file opens beside the graph as
   * a preview tab, as Show in Trace File does, without the keyboard. Only the latest step's file
   * opens when steps come faster than files do.
   */
  private async follow(index: number): Promise<void> {
    const summary = this.summary;
    if (!summary) return;
    const step = ++this.followed;
    const latest = () => step === this.followed; // a later step's answer may come first: only the latest moves the cursor
    await this.askedBefore; // after the editors asked for before this step have opened (see asked)
    if (!latest()) return;
    if (await showInVisibleEditors(this.sessions, summary, index, true, latest)) return;
    if (!latest()) return;
    await showEventRecord(this.sessions, summary, index, { viewColumn: this.otherColumn(), preserveFocus: true, preview: true });
  }

  /** Steps followed so far (see {@link follow}). */
  private followed = 0;

  /** The editors asked for from the graph (Show in Trace File, Open Source Prompt, Show Whole Content), opened one after another; never rejects. */
  private askedBefore: Promise<unknown> = Promise.resolve();

  /**
   * Opens an editor the user asked for from the graph after those asked before, and a step's
   * follow in editor waits for it. Run side by side, VS Code applied them out of order: Show in
   * Trace File's editor finished opening, its cursor on the record, after the next step's follow
   * had put the cursor on that step's record; its cursor move came back after the follow's, which
   * had made otrace forget the earlier move as its own, and selected the shown event in the graph
   * again (CI: Home pressed right after Enter was lost).
   */
  private asked(open: () => Thenable<unknown>): Promise<unknown> {
    const opened = this.askedBefore.then(open);
    this.askedBefore = opened.then(undefined, () => undefined);
    return opened;
  }

  /** The editor column beside the graph (the graph stays visible). */
  private otherColumn(): vscode.ViewColumn {
    return this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  dispose(): void {
    openViews.delete(this);
    while (this.disposables.length) this.disposables.pop()?.dispose();
    this.letGo(this.uri);
  }

  /** This view no longer shows `uri`: a trace read from disk for it alone is let go (OpenTraces.letGo). */
  private letGo(uri: vscode.Uri): void {
    this.sessions.letGo(uri, (key) => [...openViews].some((v) => v !== this && v.traceUri.toString() === key));
  }
}
