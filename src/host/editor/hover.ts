/**
 * Hover on an event in a trace file (or one of its sub-agent files): type, agent, time, tokens,
 * cost, a content preview, credit and why, loop membership, stop finding, and links to the graph
 * and the source prompt. The engine answers the facts (src/engine/queries.ts); every string from
 * the trace is escaped here; only otrace's own commands are enabled in the hover.
 */
import * as vscode from 'vscode';
import { PREVIEW_CHARS, type EventInfo } from '../../engine/query-types';
import { withoutStopLead } from '../../shared/stop-words';
import { joinMarkdown, markdownText, type MarkdownText } from '../../shared/untrusted-text';
import { hoverFigures } from './hover-text';
import { commandLink, preview } from './markdown';
import { eventAtPosition } from './source-command';
import { toRange, type OpenTraces } from '../open-traces';
import type { SessionLabel } from '../../engine/human-labels';
import { markText, type HumanLabels } from './human-labels';

/** The commands a hover may run (everything else in it is text). */
export const HOVER_COMMANDS = ['otrace.showInGraph', 'otrace.goToSourcePrompt', 'otrace.explainFinding', 'otrace.showEventContent', 'otrace.labelEvent'];

/** Provides event hovers from the session in the engine. */
export class TraceHover implements vscode.HoverProvider {
  /** @param labels people's labels (shown apart from otrace's findings), when the editor has them. */
  constructor(
    private readonly sessions: OpenTraces,
    private readonly labels?: HumanLabels,
  ) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    const info = at && (await this.sessions.engine.eventInfo(at.summary.key, at.summary.stamp, at.index));
    if (!at || !info) return undefined;
    const people = this.labels ? await this.labels.labelsOn(at.summary, at.index).catch(() => []) : [];
    return new vscode.Hover(hoverMarkdown(at.summary.key, info, people), toRange(info.range));
  }
}

/** The hover's Markdown for an event of the session `trace`, with the labels people gave it. */
function hoverMarkdown(trace: string, e: EventInfo, people: readonly SessionLabel[] = []): vscode.MarkdownString {
  const index = e.index;
  const md = new vscode.MarkdownString('', false);
  md.isTrusted = { enabledCommands: HOVER_COMMANDS };
  md.supportHtml = false;
  const head: MarkdownText[] = [markdownText`**${e.type}**`];
  if (e.tool) head.push(markdownText`${e.tool}`);
  head.push(markdownText`agent **${e.agent}**`);
  // named as its lane is (the CodeLens on a spawn does too), its id after it
  if (e.to) head.push(e.toLabel ? markdownText`to **${e.toLabel}** (${e.to})` : markdownText`to ${e.to}`);
  const { when, figures } = hoverFigures(e);
  head.push(markdownText`${when}`);
  md.appendMarkdown(joinMarkdown([joinMarkdown(head, ' · '), PARAGRAPH], ''));
  if (figures.length) md.appendMarkdown(joinMarkdown([joinMarkdown(figures.map((f) => markdownText`${f}`), ' · '), PARAGRAPH], ''));
  if (e.contentHead?.trim()) {
    const more = e.contentLength > PREVIEW_CHARS ? `… (${e.contentLength.toLocaleString('en-US')} characters)` : '';
    md.appendMarkdown(markdownText`> ${e.contentHead + more}\n\n`);
  }
  const analysis: MarkdownText[] = [];
  if (e.credit) analysis.push(markdownText`${e.credit.text}: ${e.credit.basis}`);
  for (const f of e.findings) analysis.push(joinMarkdown([markdownText`**${f.label}**: ${preview(withoutStopLead(f.message), 300)}`, commandLink('Explain', 'otrace.explainFinding', { trace, finding: f.index })], ' '));
  if (analysis.length) md.appendMarkdown(joinMarkdown([joinMarkdown(analysis.map((a) => joinMarkdown([markdownText`- `, a], '')), '\n'), PARAGRAPH], ''));
  // people's labels: their own paragraph, apart from otrace's analysis; notes and names are escaped
  if (people.length) md.appendMarkdown(joinMarkdown([joinMarkdown(people.map((l) => markdownText`- 👤 ${preview(markText(l), 300)}`), '\n'), PARAGRAPH], ''));
  // the link's arguments are otrace's own: the session key and the event's index (no kind, no text from the trace)
  const links = [commandLink('Show in Graph', 'otrace.showInGraph', { trace, index }), commandLink('Label…', 'otrace.labelEvent', { trace, index })];
  if (e.hasSourcePrompt) links.push(commandLink('Go to Source Prompt', 'otrace.goToSourcePrompt', { trace, index }));
  if (e.contentLength > PREVIEW_CHARS) links.push(commandLink(`Show Whole Content (${e.contentLength.toLocaleString('en-US')} characters)`, 'otrace.showEventContent', { trace, index }));
  md.appendMarkdown(joinMarkdown(links, ' · '));
  return md;
}

const PARAGRAPH = markdownText`\n\n`;
