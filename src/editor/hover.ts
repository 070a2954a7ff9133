/**
 * Hover on an event in a trace file (or one of its sub-agent files): type, agent, time, tokens,
 * cost, a content preview, credit and why, loop membership, stop finding, and links to the graph
 * and the source prompt. Every string from the trace is escaped; only otrace's own commands are
 * enabled in the hover.
 */
import * as vscode from 'vscode';
import { sourcePromptOf } from '../session/source-prompt';
import { canonicalType } from '../trace/schema';
import { formatCredit } from './event-marks';
import { commandLink, escapeMarkdown, preview } from './markdown';
import { eventAtPosition } from './source-command';
import { toRange, type TraceSessions } from './trace-sessions';

/** The commands a hover may run (everything else in it is text). */
export const HOVER_COMMANDS = ['otrace.showInGraph', 'otrace.goToSourcePrompt', 'otrace.explainFinding', 'otrace.showEventContent'];

const PREVIEW_CHARS = 400;

/** Provides event hovers from the cached session. */
export class TraceHover implements vscode.HoverProvider {
  constructor(private readonly sessions: TraceSessions) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    if (!at) return undefined;
    const { snapshot, index } = at;
    const e = snapshot.loaded.trace.events[index];
    const origin = snapshot.loaded.eventOrigins[index]!;
    const md = new vscode.MarkdownString('', false);
    md.isTrusted = { enabledCommands: HOVER_COMMANDS };
    md.supportHtml = false;
    const head = [`**${escapeMarkdown(e.type)}**`];
    if (e.tool) head.push(escapeMarkdown(e.tool));
    head.push(`agent **${escapeMarkdown(e.agent)}**`);
    if (e.to) head.push(`to ${escapeMarkdown(e.to)}`);
    head.push(`t \\= ${round(e.t)} s`);
    md.appendMarkdown(head.join(' · ') + '\n\n');
    const figures: string[] = [];
    if (typeof e.tokens === 'number') figures.push(`${e.tokens.toLocaleString('en-US')} tokens`);
    if (typeof e.cost === 'number') figures.push(`cost ${e.cost}`);
    if (typeof e.duration_s === 'number') figures.push(`${round(e.duration_s)} s long`);
    if (canonicalType(e.type) === 'stop') figures.push(`reason ${escapeMarkdown(String(e.reason ?? 'unknown'))}`);
    if (figures.length) md.appendMarkdown(figures.join(' · ') + '\n\n');
    const text = e.content ?? e.content_ref;
    if (typeof text === 'string' && text.trim()) md.appendMarkdown(`> ${escapeMarkdown(preview(text, PREVIEW_CHARS))}\n\n`);

    const analysis: string[] = [];
    const credit = snapshot.analysis?.credit;
    if (credit) {
      const v = credit.by_index[index];
      const given = typeof e.credit === 'number';
      const value = credit.signed ? `credit ${formatCredit(v, true)}` : `influence ${Math.abs(v).toFixed(2)} (unsigned: the trace has no outcome signal)`;
      analysis.push(`${value}: ${given ? 'the value the trace gives' : escapeMarkdown(credit.method)}`);
    }
    for (const k of snapshot.findingsOf.get(index) ?? []) {
      const f = snapshot.findings[k];
      const label = f.kind === 'loop' ? `loop ×${f.loop?.repetitions ?? '?'} (event ${f.events.indexOf(index) + 1} of ${f.events.length})` : f.kind === 'best_stop' ? 'best stop' : f.kind === 'blame' ? 'decisive error' : `stop, ${f.mode === 'ok' ? 'sound' : f.mode?.replace('_', ' ')}`;
      analysis.push(`**${label}**: ${escapeMarkdown(preview(f.message, 300))} ${commandLink('Explain', 'otrace.explainFinding', { trace: snapshot.key, finding: k })}`);
    }
    if (analysis.length) md.appendMarkdown(analysis.map((a) => `- ${a}`).join('\n') + '\n\n');
    const links = [commandLink('Show in Graph', 'otrace.showInGraph', { trace: snapshot.key, index })];
    if (sourcePromptOf(snapshot, index)) links.push(commandLink('Go to Source Prompt', 'otrace.goToSourcePrompt', { trace: snapshot.key, index }));
    if (typeof text === 'string' && text.length > PREVIEW_CHARS) links.push(commandLink(`Show Whole Content (${text.length.toLocaleString('en-US')} characters)`, 'otrace.showEventContent', { trace: snapshot.key, index }));
    md.appendMarkdown(links.join(' · '));
    return new vscode.Hover(md, toRange(origin.range));
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
