/**
 * Hover on an event in a trace file (or one of its sub-agent files): type, agent, time, tokens,
 * cost, a content preview, credit and why, loop membership, stop finding, and links to the graph
 * and the source prompt. The engine answers the facts (src/engine/queries.ts); every string from
 * the trace is escaped here; only otrace's own commands are enabled in the hover.
 */
import * as vscode from 'vscode';
import { PREVIEW_CHARS, type EventInfo } from '../../engine/query-types';
import { joinMarkdown, markdownText, type MarkdownText } from '../../shared/untrusted-text';
import { hoverFigures } from './hover-text';
import { commandLink, preview } from './markdown';
import { eventAtPosition } from './source-command';
import { toRange, type OpenTraces } from '../open-traces';

/** The commands a hover may run (everything else in it is text). */
export const HOVER_COMMANDS = ['otrace.showInGraph', 'otrace.goToSourcePrompt', 'otrace.explainFinding', 'otrace.showEventContent'];

/** Provides event hovers from the session in the engine. */
export class TraceHover implements vscode.HoverProvider {
  constructor(private readonly sessions: OpenTraces) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    const info = at && (await this.sessions.engine.eventInfo(at.summary.key, at.summary.stamp, at.index));
    if (!at || !info) return undefined;
    return new vscode.Hover(hoverMarkdown(at.summary.key, info), toRange(info.range));
  }
}

/** The hover's Markdown for an event of the session `trace`. */
function hoverMarkdown(trace: string, e: EventInfo): vscode.MarkdownString {
  const index = e.index;
  const md = new vscode.MarkdownString('', false);
  md.isTrusted = { enabledCommands: HOVER_COMMANDS };
  md.supportHtml = false;
  const head: MarkdownText[] = [markdownText`**${e.type}**`];
  if (e.tool) head.push(markdownText`${e.tool}`);
  head.push(markdownText`agent **${e.agent}**`);
  if (e.to) head.push(markdownText`to ${e.to}`);
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
  for (const f of e.findings) analysis.push(joinMarkdown([markdownText`**${f.label}**: ${preview(f.message, 300)}`, commandLink('Explain', 'otrace.explainFinding', { trace, finding: f.index })], ' '));
  if (analysis.length) md.appendMarkdown(joinMarkdown([joinMarkdown(analysis.map((a) => joinMarkdown([markdownText`- `, a], '')), '\n'), PARAGRAPH], ''));
  const links = [commandLink('Show in Graph', 'otrace.showInGraph', { trace, index })];
  if (e.hasSourcePrompt) links.push(commandLink('Go to Source Prompt', 'otrace.goToSourcePrompt', { trace, index }));
  if (e.contentLength > PREVIEW_CHARS) links.push(commandLink(`Show Whole Content (${e.contentLength.toLocaleString('en-US')} characters)`, 'otrace.showEventContent', { trace, index }));
  md.appendMarkdown(joinMarkdown(links, ' · '));
  return md;
}

const PARAGRAPH = markdownText`\n\n`;
