/**
 * Import throughput of the Claude Code and Codex importers on about 10 MB of real-format input each,
 * beside a bare JSON.parse of the same lines in the same run (the floor any JSONL importer pays).
 *
 * Input: the real transcripts of the corpus (`../shared/corpus/{claude-code,codex}`, or the folder in
 * $OTRACE_CORPUS) when present, else this repository's trimmed fixtures (test/fixtures/...), replicated
 * in memory to reach the size. Each copy gets its own ids (uuids, tool-use / call ids, message ids
 * prefixed with the copy number) so calls pair within their copy, as in one long session.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileAccess } from '../src/trace/formats';
import { readClaudeCode } from '../src/trace/importers/claude-code';
import { readCodex } from '../src/trace/importers/codex';
import { fmt, medianMs } from './_util';

const TARGET_BYTES = 10e6;
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const ROLLOUT = 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';

/** Where the real files are: the corpus when it is there, else the fixtures. */
function sources(): { claude: string; codex: string; label: string } {
  const corpus = process.env.OTRACE_CORPUS ?? path.join(__dirname, '..', '..', 'shared', 'corpus');
  if (fs.existsSync(path.join(corpus, 'claude-code', `${SESSION}.jsonl`)) && fs.existsSync(path.join(corpus, 'codex', 'raw', 'sessions', ROLLOUT))) {
    return { claude: path.join(corpus, 'claude-code'), codex: path.join(corpus, 'codex', 'raw', 'sessions'), label: `corpus (${corpus})` };
  }
  const fixtures = path.join(__dirname, '..', 'test', 'fixtures');
  return { claude: path.join(fixtures, 'claude-code'), codex: path.join(fixtures, 'codex'), label: 'trimmed test fixtures (corpus not found)' };
}

/** `text` repeated until it reaches `bytes`, each copy's ids prefixed with its number. */
function replicate(text: string, bytes: number, ids: RegExp): { text: string; copies: number } {
  const body = text.endsWith('\n') ? text : text + '\n';
  const copies = Math.max(1, Math.round(bytes / Buffer.byteLength(body)));
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(k === 0 ? body : body.replace(ids, (m) => `${m}c${k}`));
  return { text: parts.join(''), copies };
}

/** The median time of a bare JSON.parse of every non-blank line of `texts`. */
function parseFloorMs(texts: string[]): number {
  return medianMs(() => {
    for (const t of texts) for (const line of t.split('\n')) if (line.trim() !== '') JSON.parse(line);
  });
}

function report(name: string, bytes: number, events: number, importMs: number, parseMs: number): void {
  const mb = bytes / 1e6;
  console.log(`${name}: ${fmt(mb)} MB, ${fmt(events, 0)} events`);
  console.log(`  JSON.parse of the lines: ${fmt(parseMs)} ms  ${fmt(mb / (parseMs / 1000))} MB/s`);
  console.log(`  import                 : ${fmt(importMs)} ms  ${fmt(mb / (importMs / 1000))} MB/s  ${fmt(events / (importMs / 1000), 0)} events/s`);
  console.log(`  ratio import / JSON.parse: ${fmt(importMs / parseMs, 2)}x`);
}

export async function bench(): Promise<void> {
  const src = sources();
  console.log(`input: ${src.label}, replicated to ~${fmt(TARGET_BYTES / 1e6, 0)} MB per format`);

  // Claude Code: the session with its sub-agent files (served from memory).
  const mainText = fs.readFileSync(path.join(src.claude, `${SESSION}.jsonl`), 'utf8');
  const subDir = path.join(src.claude, SESSION, 'subagents');
  const subFiles = new Map(fs.readdirSync(subDir).map((n) => [path.join(subDir, n), fs.readFileSync(path.join(subDir, n), 'utf8')]));
  const subBytes = [...subFiles.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
  const claude = replicate(mainText, TARGET_BYTES - subBytes, /\b(toolu_|msg_)[A-Za-z0-9]+|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g);
  const files: FileAccess = { readText: (p) => subFiles.get(p), list: (d) => (d === subDir ? [...subFiles.keys()].map((p) => path.basename(p)) : undefined) };
  const fileName = path.join(src.claude, `${SESSION}.jsonl`);
  let claudeEvents = 0;
  const claudeMs = medianMs(() => {
    claudeEvents = readClaudeCode(claude.text, fileName, files).trace.events.length;
  });
  report(`Claude Code session (${claude.copies} copies + ${subFiles.size} sub-agent files)`, Buffer.byteLength(claude.text) + subBytes, claudeEvents, claudeMs, parseFloorMs([claude.text, ...subFiles.values()]));

  // Codex: one long rollout.
  const rollout = fs.readFileSync(path.join(src.codex, ROLLOUT), 'utf8');
  const codex = replicate(rollout, TARGET_BYTES, /\bcall_[A-Za-z0-9]+/g);
  let codexEvents = 0;
  const codexMs = medianMs(() => {
    codexEvents = readCodex(codex.text).trace.events.length;
  });
  report(`Codex rollout (${codex.copies} copies)`, Buffer.byteLength(codex.text), codexEvents, codexMs, parseFloorMs([codex.text]));
}
