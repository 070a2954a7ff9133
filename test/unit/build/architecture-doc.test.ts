/**
 * docs/architecture.md's layer diagram is made from the real imports: every relative import in
 * src/ and webview/ (type-only ones too) is resolved to its file and counted as an arrow from the
 * importing file's layer to the imported file's layer. The test fails when the diagram in the doc
 * differs from the imports; `OTRACE_WRITE_DOCS=1` writes it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(__dirname, '..', '..', '..');
const DOC = path.join(ROOT, 'docs', 'architecture.md');
/** The layers, in the order the diagram lists them, with what each runs in. */
const LAYERS: { dir: string; name: string; runs: string }[] = [
  { dir: 'src/host', name: 'host', runs: 'extension host: everything that imports vscode' },
  { dir: 'webview', name: 'webview', runs: 'the graph panel: DOM only' },
  { dir: 'src/cli', name: 'cli', runs: 'the otrace command' },
  { dir: 'src/engine', name: 'engine', runs: 'own process: sessions, snapshots, graph windows' },
  { dir: 'src/analysis', name: 'analysis', runs: 'pure: stops, loops, credit, blame' },
  { dir: 'src/trace', name: 'trace', runs: 'the model, readers and importers' },
  { dir: 'src/shared', name: 'shared', runs: 'engine-webview contract: no vscode, DOM or Node' },
];
const BEGIN = '<!-- layers:begin (written by test/unit/build/architecture-doc.test.ts) -->';
const END = '<!-- layers:end -->';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

function layerOf(file: string): string | undefined {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  return LAYERS.find((l) => rel.startsWith(l.dir + '/'))?.name;
}

/** Arrows `from -> to` between layers, each with the number of importing files. */
export function layerImports(): Map<string, number> {
  const arrows = new Map<string, Set<string>>();
  for (const l of LAYERS) {
    for (const file of sourceFiles(path.join(ROOT, l.dir))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
        const target = path.resolve(path.dirname(file), m[1]);
        const to = layerOf(fs.existsSync(target + '.ts') ? target + '.ts' : path.join(target, 'index.ts'));
        if (!to || to === l.name) continue;
        const key = `${l.name} -> ${to}`;
        if (!arrows.has(key)) arrows.set(key, new Set());
        arrows.get(key)!.add(file);
      }
    }
  }
  return new Map([...arrows].map(([k, files]) => [k, files.size]));
}

/** The doc's block: a Mermaid diagram and the same arrows as a list. */
function diagram(): string {
  const arrows = layerImports();
  const order = LAYERS.map((l) => l.name);
  const sorted = [...arrows.keys()].sort((a, b) => {
    const [fa, ta] = a.split(' -> ');
    const [fb, tb] = b.split(' -> ');
    return order.indexOf(fa) - order.indexOf(fb) || order.indexOf(ta) - order.indexOf(tb);
  });
  const lines = [BEGIN, '```mermaid', 'flowchart TD'];
  for (const l of LAYERS) lines.push(`  ${l.name}["${l.name}<br/><small>${l.dir}/ · ${l.runs}</small>"]`);
  for (const a of sorted) lines.push(`  ${a.replace(' -> ', ' --> ')}`);
  lines.push('```', '', '| layer | imports |', '| --- | --- |');
  for (const l of LAYERS) {
    const out = sorted.filter((a) => a.startsWith(l.name + ' ->')).map((a) => a.split(' -> ')[1]);
    lines.push(`| ${l.name} (\`${l.dir}/\`) | ${out.join(', ') || 'nothing'} |`);
  }
  lines.push(END);
  return lines.join('\n');
}

test('docs/architecture.md draws the layers as the code imports them', () => {
  const doc = fs.readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(start >= 0 && end > start, 'the doc has the layers block');
  const want = diagram();
  if (process.env.OTRACE_WRITE_DOCS === '1') fs.writeFileSync(DOC, doc.slice(0, start) + want + doc.slice(end + END.length));
  else assert.equal(doc.slice(start, end + END.length), want, 'the diagram differs from the imports: run with OTRACE_WRITE_DOCS=1');
});

test('no layer imports against the rules (the compiler enforces them; this reads them from the imports)', () => {
  const allowed: Record<string, string[]> = {
    shared: [],
    trace: ['shared'],
    analysis: ['trace', 'shared'],
    engine: ['analysis', 'trace', 'shared'],
    cli: ['engine', 'analysis', 'trace', 'shared'],
    host: ['engine', 'analysis', 'trace', 'shared'],
    webview: ['shared'],
  };
  const wrong = [...layerImports().keys()].filter((a) => {
    const [from, to] = a.split(' -> ');
    return !allowed[from].includes(to);
  });
  assert.deepEqual(wrong, []);
});
