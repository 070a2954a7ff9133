/**
 * Bring your own format: a mapping file (`*.otrace-map.json`, schema `media/otrace-map.schema.json`,
 * docs/mapping.md) says how the records of an in-house JSON / JSON Lines format become events, by
 * dotted paths only (no expression language: mapping files come from workspaces, and untrusted
 * workspaces are supported):
 *
 *   { "files": { "glob": "*.runlog.jsonl", "required": ["ev", "ts"] },
 *     "records": "items",                        // JSON documents: dotted path to the record array
 *     "id": "ev_id", "time": { "path": "ts", "unit": "ms" }, "agent": "who",
 *     "type": { "path": "ev", "map": { "call": "tool_call", "said": "message" } },
 *     "parent": "reply_to", "causes": "after", "content": "body.text", "tool": "fn", "to": "target" }
 *
 * Time units: s, ms, us, ns (numbers since the epoch) or iso (ISO 8601); t = seconds since the
 * earliest record. Types: the mapped value (or the raw one) must be an otrace event type; a record
 * of another type is skipped and counted in one warning. Parent -> event `causal` edges; causes too.
 * A wrong mapping gets positioned problems in the mapping file (`problem.file`); a bad record gets
 * positioned problems in the trace file; the rest loads.
 */
import type { Node } from 'jsonc-parser';
import { firstJsonLines } from './formats';
import { globMatches, globProblem } from './glob';
import { isComplete, items, nodeRange, parseJsonDocument, properties, propertyOf, valueIn, type JsonDocument } from './json-positions';
import { LineIndex, type LoadedTrace, type Problem } from './model';
import { EVENT_TYPES, type TraceEvent } from './schema';
import { ImportBuilder, baseName } from './importers/json-import';
import { forEachDocument, text as asText, timeNs } from './importers/span-import';
import { addTo, ownField } from './counts';
import { plainText } from '../shared/untrusted-text';

export { globMatches } from './glob';

/** A parsed mapping file. Paths are dotted (`a.b.0.c`). */
export interface TraceMapping {
  name?: string;
  files?: { glob?: string; required?: string[] };
  records?: string;
  id: string;
  time: { path: string; unit: 's' | 'ms' | 'us' | 'ns' | 'iso' };
  agent: string;
  type: { path: string; map?: Record<string, string> };
  parent?: string;
  causes?: string;
  content?: string;
  tool?: string;
  to?: string;
}

const UNITS = ['s', 'ms', 'us', 'ns', 'iso'];
const PATH_KEYS = ['records', 'id', 'agent', 'parent', 'causes', 'content', 'tool', 'to'];
const KNOWN = new Set(['$schema', 'name', 'files', 'time', 'type', ...PATH_KEYS]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const DOTTED = /^[^.\s]+(\.[^.\s]+)*$/;

/**
 * Reads a mapping file. @param text its content; @param mapPath its path (set as `file` on problems).
 * @returns the mapping (undefined when an error makes it unusable) and positioned problems; never throws.
 */
export function parseMapping(text: string, mapPath: string): { mapping?: TraceMapping; problems: Problem[]; glob?: string } {
  const doc = parseJsonDocument(text, new LineIndex(text));
  const problems: Problem[] = doc.problems.map((p) => ({ ...p, file: mapPath }));
  const at = (node: Node | undefined, severity: Problem['severity'], message: string) =>
    problems.push({ severity, message, file: mapPath, range: node ? nodeRange(doc, node) : { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
  const root = doc.root;
  if (!root || root.type !== 'object') {
    at(root, 'error', 'a mapping file is one JSON object (see media/otrace-map.schema.json)');
    return { problems };
  }
  for (const [key, node] of properties(root)) if (!KNOWN.has(key)) at(node.parent?.children?.[0] ?? node, 'warning', plainText`unknown mapping field "${key}"; known: ${[...KNOWN].filter((k) => k !== '$schema').join(', ')}`);
  const pathAt = (node: Node | undefined, what: string): string | undefined => {
    const v = valueIn(doc, node);
    if (typeof v === 'string' && DOTTED.test(v)) return v;
    at(node, 'error', plainText`"${what}" must be a dotted path to a field of the record (e.g. "payload.text"), not ${String(JSON.stringify(v))}`);
    return undefined;
  };
  const m: Partial<TraceMapping> = {};
  for (const key of PATH_KEYS) {
    const node = propertyOf(root, key);
    if (node) (m as Record<string, unknown>)[key] = pathAt(node, key);
  }
  for (const key of ['id', 'agent']) if (!propertyOf(root, key)) at(root, 'error', `the mapping needs "${key}": the dotted path to each record's ${key === 'id' ? 'id' : 'agent (its lane)'}`);
  const timeNode = propertyOf(root, 'time');
  if (!timeNode) at(root, 'error', 'the mapping needs "time": {"path": ..., "unit": "s" | "ms" | "us" | "ns" | "iso"}');
  else if (timeNode.type === 'string') m.time = { path: pathAt(timeNode, 'time')!, unit: 's' };
  else {
    const path = pathAt(propertyOf(timeNode, 'path'), 'time.path');
    const unitNode = propertyOf(timeNode, 'unit');
    const unit = unitNode ? valueIn(doc, unitNode) : 's';
    if (typeof unit !== 'string' || !UNITS.includes(unit)) at(unitNode, 'error', plainText`"time.unit" must be one of ${UNITS.join(', ')}, not ${String(JSON.stringify(unit))}`);
    else if (path) m.time = { path, unit: unit as TraceMapping['time']['unit'] };
  }
  const typeNode = propertyOf(root, 'type');
  if (!typeNode) at(root, 'error', 'the mapping needs "type": {"path": ..., "map": {"your value": "otrace type"}}');
  else if (typeNode.type === 'string') m.type = { path: pathAt(typeNode, 'type')! };
  else {
    const path = pathAt(propertyOf(typeNode, 'path'), 'type.path');
    const map: Record<string, string> = {};
    for (const [k, node] of properties(propertyOf(typeNode, 'map'))) {
      const v = valueIn(doc, node);
      if (typeof v === 'string' && (EVENT_TYPES as readonly string[]).includes(v)) map[k] = v;
      else at(node, 'error', plainText`"${k}" maps to ${String(JSON.stringify(v))}, which is not an otrace event type (${EVENT_TYPES.join(', ')})`);
    }
    if (path) m.type = { path, map };
  }
  const files = propertyOf(root, 'files');
  if (files) {
    const glob = valueIn(doc, propertyOf(files, 'glob'));
    const required = valueIn(doc, propertyOf(files, 'required'));
    const globRefused = typeof glob === 'string' ? globProblem(glob) : undefined;
    if (glob !== undefined && typeof glob !== 'string') at(propertyOf(files, 'glob'), 'error', '"files.glob" must be a file-name pattern such as "*.runlog.jsonl"');
    else if (globRefused) at(propertyOf(files, 'glob'), 'error', `"files.glob" is refused: ${globRefused}`);
    if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === 'string' && DOTTED.test(r)))) at(propertyOf(files, 'required'), 'error', '"files.required" must be a list of dotted paths');
    m.files = { glob: typeof glob === 'string' && !globRefused ? glob : undefined, required: Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : undefined };
  }
  const name = valueIn(doc, propertyOf(root, 'name'));
  if (typeof name === 'string') m.name = name;
  // The glob is kept even when the mapping is unusable: a trace it was meant for can say why it did not apply.
  if (problems.some((p) => p.severity === 'error')) return { problems, glob: m.files?.glob };
  return { mapping: m as TraceMapping, problems, glob: m.files?.glob };
}

/** The value at a dotted path of a record (array indices as numbers), or undefined. */
export function pick(record: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  let v: unknown = record;
  for (const seg of path.split('.')) {
    if (Array.isArray(v) && /^\d+$/.test(seg)) v = v[Number(seg)];
    else if (isObject(v)) v = v[seg];
    else return undefined;
  }
  return v;
}

/** True when the mapping's glob matches `fileName` and its first record has every required field. */
export function mappingApplies(mapping: TraceMapping, text: string, fileName: string): boolean {
  if (mapping.files?.glob && !globMatches(mapping.files.glob, fileName)) return false;
  const required = mapping.files?.required ?? [];
  if (!required.length) return true;
  const first = firstJsonLines(text, 1)[0];
  const record = mapping.records ? (pick(first, mapping.records) as unknown[] | undefined)?.[0] : Array.isArray(first) ? first[0] : first;
  return required.every((p) => pick(record, p) !== undefined);
}

/** Reads `text` with a mapping. Never throws: bad records are positioned problems, the rest loads. */
export function readWithMapping(text: string, fileName: string, mapping: TraceMapping): LoadedTrace {
  const b = new ImportBuilder();
  const recs: { v: Record<string, unknown>; doc: JsonDocument; node: Node; record: number }[] = [];
  let record = 0;
  forEachDocument(text, new LineIndex(text), (doc) => {
    b.problems.push(...doc.problems);
    let list: Node[] = doc.root ? [doc.root] : [];
    if (mapping.records) {
      let node: Node | undefined = doc.root;
      for (const seg of mapping.records.split('.')) node = node?.type === 'array' ? items(node)[Number(seg)] : propertyOf(node, seg);
      list = items(node);
    } else if (doc.root?.type === 'array') list = items(doc.root);
    for (const node of list) {
      const v = isComplete(doc, node) ? valueIn(doc, node) : undefined;
      if (!isObject(v)) b.problem('error', `record ${record} ${isComplete(doc, node) ? 'must be an object' : 'is cut off'}; skipped`, nodeRange(doc, node));
      else recs.push({ v, doc, node, record });
      record++;
    }
  });
  const times = recs.map((r) => timeNs(pick(r.v, mapping.time.path), mapping.time.unit === 'iso' ? 'ms' : mapping.time.unit));
  let t0: bigint | undefined;
  for (const t of times) if (t !== undefined && (t0 === undefined || t < t0)) t0 = t;
  const skipped: Record<string, number> = {};
  let firstSkipped: Node | undefined;
  let firstSkippedDoc: JsonDocument | undefined;
  recs.forEach((r, i) => {
    const range = nodeRange(r.doc, r.node);
    const id = pick(r.v, mapping.id);
    const agent = pick(r.v, mapping.agent);
    const rawType = String(pick(r.v, mapping.type.path) ?? '');
    const type = (mapping.type.map && ownField(mapping.type.map, rawType)) ?? rawType;
    if (typeof id !== 'string' && typeof id !== 'number') return b.problem('error', plainText`record ${r.record} has no id at "${mapping.id}"; skipped`, range);
    if (typeof agent !== 'string' || !agent) return b.problem('error', plainText`record ${r.record} has no agent at "${mapping.agent}"; skipped`, range);
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      addTo(skipped, rawType);
      if (!firstSkipped) [firstSkipped, firstSkippedDoc] = [r.node, r.doc];
      return;
    }
    if (times[i] === undefined) b.problem('warning', plainText`record ${r.record} has no time at "${mapping.time.path}" (${mapping.time.unit}); placed at 0`, range);
    const parent = pick(r.v, mapping.parent);
    const causesRaw = pick(r.v, mapping.causes);
    const causes = [...(parent !== undefined && parent !== null ? [String(parent)] : []), ...(Array.isArray(causesRaw) ? causesRaw.map(String) : causesRaw !== undefined && causesRaw !== null ? [String(causesRaw)] : [])];
    const ev = { id: String(id), t: times[i] === undefined || t0 === undefined ? 0 : Number(times[i]! - t0) / 1e9, type, agent, parent: parent !== undefined && parent !== null ? String(parent) : undefined, causes: causes.length ? [...new Set(causes)] : undefined, content: asText(pick(r.v, mapping.content)), tool: asText(pick(r.v, mapping.tool)), to: asText(pick(r.v, mapping.to)) } as TraceEvent;
    b.add(ev, { range, record: r.record });
    for (const c of ev.causes ?? []) b.edge(c, ev.id, 'causal');
  });
  const kinds = Object.entries(skipped);
  if (kinds.length && firstSkipped && firstSkippedDoc) b.problem('warning', plainText`${kinds.reduce((n, [, c]) => n + c, 0)} records of types the mapping does not map onto otrace types skipped: ${kinds.map(([k, c]) => `${k || '(none)'} ${c}`).join(', ')}; add them to "type.map"`, nodeRange(firstSkippedDoc, firstSkipped));
  return b.finish(`mapping:${mapping.name ?? 'custom'}`, { trace_id: baseName(fileName), metadata: { source: 'mapping', mapping: mapping.name, skipped_records: Object.keys(skipped).length ? skipped : undefined } });
}
