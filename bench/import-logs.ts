/**
 * Import throughput of the Who&When, MAST and OTel GenAI importers on about 10 MB of real-format
 * input each, beside a bare JSON.parse of the same texts in the same run (the floor any JSON importer
 * pays; the importers parse with jsonc-parser's parseTree to keep positions, which costs more).
 *
 * Input: the corpus files (`../shared/corpus/{who-and-when,mast}`, or the folder in $OTRACE_CORPUS)
 * when present, else this repository's fixtures (test/fixtures/...), replicated in memory:
 * - Who&When and MAST: the files are imported one by one, as the tool opens them, round after round
 *   until the bytes reach the target;
 * - OTel: the JSON Lines fixture (written from the conventions; no real export exists) is repeated
 *   as one long file, each copy's trace and span ids made unique.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readMast } from '../src/trace/importers/mast';
import { readOtel } from '../src/trace/importers/otel';
import { readWhoAndWhen } from '../src/trace/importers/who-and-when';
import type { LoadedTrace } from '../src/trace/model';
import { fmt, medianMs } from './_util';

const TARGET_BYTES = 10e6;

/** Every .json file under `dir` (recursively), sorted. */
function jsonFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? jsonFiles(path.join(dir, d.name)) : d.name.endsWith('.json') ? [path.join(dir, d.name)] : []))
    .sort();
}

/** The corpus folder of a source when it holds files, else the fixture folder. */
function sourceDir(name: string): { dir: string; label: string } {
  const corpus = path.join(process.env.OTRACE_CORPUS ?? path.join(__dirname, '..', '..', 'shared', 'corpus'), name);
  if (jsonFiles(corpus).length > 0) return { dir: corpus, label: `corpus ${corpus}` };
  return { dir: path.join(__dirname, '..', 'test', 'fixtures', name), label: `fixtures test/fixtures/${name} (corpus not found)` };
}

/** File texts repeated round after round until their bytes reach `bytes`. */
function rounds(files: { name: string; text: string }[], bytes: number): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  let total = 0;
  while (total < bytes && files.length > 0) {
    for (const f of files) {
      out.push(f);
      total += Buffer.byteLength(f.text);
      if (total >= bytes) break;
    }
  }
  return out;
}

function report(name: string, bytes: number, events: number, importMs: number, parseMs: number): void {
  const mb = bytes / 1e6;
  console.log(`${name}: ${fmt(mb)} MB, ${fmt(events, 0)} events`);
  console.log(`  JSON.parse              : ${fmt(parseMs)} ms  ${fmt(mb / (parseMs / 1000))} MB/s`);
  console.log(`  import                  : ${fmt(importMs)} ms  ${fmt(mb / (importMs / 1000))} MB/s  ${fmt(events / (importMs / 1000), 0)} events/s`);
  console.log(`  ratio import / JSON.parse: ${fmt(importMs / parseMs, 2)}x`);
}

/** Imports each file with `read`; reports the median of 5 runs beside JSON.parse of the same texts. */
function benchFiles(name: string, files: { name: string; text: string }[], read: (text: string, fileName: string) => LoadedTrace): void {
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  let events = 0;
  const importMs = medianMs(() => {
    events = 0;
    for (const f of files) events += read(f.text, f.name).trace.events.length;
  });
  const parseMs = medianMs(() => {
    for (const f of files) JSON.parse(f.text);
  });
  report(name, bytes, events, importMs, parseMs);
}

export async function bench(): Promise<void> {
  console.log(`target ~${fmt(TARGET_BYTES / 1e6, 0)} MB per format`);

  const ww = sourceDir('who-and-when');
  const wwFiles = jsonFiles(ww.dir).map((p) => ({ name: p, text: fs.readFileSync(p, 'utf8') }));
  const wwInput = rounds(wwFiles, TARGET_BYTES);
  console.log(`Who&When input: ${ww.label}, ${wwFiles.length} files`);
  benchFiles(`Who&When (${wwInput.length} file imports)`, wwInput, readWhoAndWhen);

  const mast = sourceDir('mast');
  const mastFiles = jsonFiles(mast.dir).map((p) => ({ name: p, text: fs.readFileSync(p, 'utf8') }));
  const mastInput = rounds(mastFiles, TARGET_BYTES);
  console.log(`MAST input: ${mast.label}, ${mastFiles.length} files`);
  benchFiles(`MAST (${mastInput.length} file imports)`, mastInput, readMast);

  const otelText = fs.readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'otel', 'multi-agent.otlp.jsonl'), 'utf8');
  const copies = Math.max(1, Math.round(TARGET_BYTES / Buffer.byteLength(otelText)));
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(otelText.replace(/"(traceId|spanId|parentSpanId)": "([0-9a-f]+)"/g, (_, key: string, id: string) => `"${key}": "${id}${k.toString(16)}"`));
  const otel = parts.join('');
  console.log('OTel input: test/fixtures/otel/multi-agent.otlp.jsonl (written from the conventions)');
  let otelEvents = 0;
  const otelMs = medianMs(() => {
    otelEvents = readOtel(otel, 'spans.jsonl').trace.events.length;
  });
  const otelParseMs = medianMs(() => {
    for (const line of otel.split('\n')) if (line.trim() !== '') JSON.parse(line);
  });
  report(`OTel JSON Lines (${copies} copies, one file)`, Buffer.byteLength(otel), otelEvents, otelMs, otelParseMs);
}
