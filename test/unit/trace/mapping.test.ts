import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listFormats, loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { mappingApplies, parseMapping, readWithMapping } from '../../../src/trace/mapping';
import { LineIndex } from '../../../src/trace/model';
import { fixture } from '../helpers';

type Raw = Record<string, any>;

test('mapping file: an in-house JSON Lines format opens with lanes, types and causal edges', () => {
  const text = fixture('mapping', 'crew.runlog.jsonl');
  // No built-in detector takes it, and the message says how to write a mapping.
  assert.deepEqual(listFormats().filter((f) => f.detect(text, 'crew.runlog.jsonl')).map((f) => f.id), []);
  assert.match(loadTrace(text, 'crew.runlog.jsonl').problems[0].message, /mapping file \(\*\.otrace-map\.json/);
  const { mapping, problems } = parseMapping(fixture('mapping', 'crew.otrace-map.json'), 'crew.otrace-map.json');
  assert.deepEqual(problems, []);
  assert.ok(mapping && mappingApplies(mapping, text, '/x/crew.runlog.jsonl'));
  assert.equal(mappingApplies(mapping, text, '/x/other.jsonl'), false);
  const loaded = readWithMapping(text, 'crew.runlog.jsonl', mapping);
  assert.equal(loaded.format, 'mapping:crew-runlog');
  const raw: Raw[] = text.trim().split('\n').map((l) => JSON.parse(l));
  const mapped = raw.filter((r) => mapping.type.map![r.ev]);
  assert.deepEqual(loaded.trace.events.map((e) => [e.id, e.type, e.agent]), mapped.map((r) => [r.ev_id, mapping.type.map![r.ev], r.who]));
  assert.deepEqual(loaded.trace.events.map((e) => e.t), mapped.map((r) => (r.ts - raw[0].ts) / 1000));
  const e2 = loaded.trace.events.find((e) => e.id === 'e2')!;
  assert.deepEqual([e2.to, e2.content], ['researcher', 'Find three sources on tidal energy.']);
  assert.equal(loaded.trace.events.find((e) => e.id === 'e3')!.tool, 'web_search');
  // Edges: reply_to and after, as causal edges.
  const edges = loaded.trace.edges.map((e) => `${e.src}->${e.dst}`).sort();
  const want = mapped.flatMap((r) => [...(r.reply_to ? [`${r.reply_to}->${r.ev_id}`] : []), ...(r.after ?? []).map((a: string) => `${a}->${r.ev_id}`)]).sort();
  assert.deepEqual(edges, want);
  // The unmapped heartbeat: one warning on its line; every event's range is its line.
  assert.deepEqual(loaded.problems.map((p) => [p.severity, p.range.start.line, p.message.slice(0, 61)]), [['warning', 4, '1 records of types the mapping does not map onto otrace types']]);
  const lines = new LineIndex(text);
  loaded.trace.events.forEach((e, i) => {
    const o = loaded.eventOrigins.get(i)!;
    const start = lines.lineStart(o.range.start.line) + o.range.start.character;
    const end = lines.lineStart(o.range.end.line) + o.range.end.character;
    assert.equal(JSON.parse(text.slice(start, end)).ev_id, e.id);
    assert.equal(o.record, raw.findIndex((r) => r.ev_id === e.id));
  });
});

test('mapping file: a wrong mapping gets positioned errors in the mapping file', () => {
  const text = fixture('mapping', 'wrong.otrace-map.json');
  const { mapping, problems } = parseMapping(text, 'wrong.otrace-map.json');
  assert.equal(mapping, undefined);
  const at = (needle: string) => {
    const i = text.indexOf(needle);
    const pos = new LineIndex(text).position(i);
    return [pos.line, pos.character];
  };
  assert.deepEqual(
    problems.map((p) => [p.severity, p.file, p.range.start.line, p.range.start.character, p.message.split(/[;:,(]/)[0]]),
    [
      ['warning', 'wrong.otrace-map.json', ...at('"agnet"'), 'unknown mapping field "agnet"'],
      ['error', 'wrong.otrace-map.json', ...at('"body..text"'), '"content" must be a dotted path to a field of the record ', ],
      ['error', 'wrong.otrace-map.json', 0, 0, 'the mapping needs "agent"'],
      ['error', 'wrong.otrace-map.json', ...at('"minutes"'), '"time.unit" must be one of s'],
      ['error', 'wrong.otrace-map.json', ...at('"tool_invocation"'), '"call" maps to "tool_invocation"'],
    ],
  );
});

test('mapping precedence: a settings-named mapping, then workspace mappings by glob and required fields, then the built-in formats', async () => {
  const { chooseMapping, loadWithMappings } = await import('../../../src/trace/mapping-choice');
  const crewText = fixture('mapping', 'crew.runlog.jsonl');
  const crew = parseMapping(fixture('mapping', 'crew.otrace-map.json'), 'crew.otrace-map.json');
  const team = parseMapping(fixture('mapping', 'team', 'team.otrace-map.json'), 'team.otrace-map.json');
  const wrong = parseMapping(fixture('mapping', 'wrong.otrace-map.json'), 'wrong.otrace-map.json');
  const ws = (p: string, m: ReturnType<typeof parseMapping>) => ({ path: p, origin: 'workspace' as const, ...m });
  const set = (p: string, glob: string, m: ReturnType<typeof parseMapping>) => ({ path: p, origin: 'setting' as const, ...m, glob });
  // Workspace: by its own glob and required fields; one without a glob never applies by itself.
  assert.equal(chooseMapping([ws('team', team), ws('crew', crew)], crewText, '/w/a/crew.runlog.jsonl')?.source.path, 'crew');
  assert.equal(chooseMapping([ws('crew', crew)], crewText, '/w/a/crew.jsonl'), undefined, 'glob does not match');
  assert.equal(chooseMapping([ws('crew', crew)], '{"id": 1}\n', '/w/a/x.runlog.jsonl'), undefined, 'required fields missing');
  assert.equal(chooseMapping([ws('team', team)], crewText, '/w/crew.runlog.jsonl'), undefined);
  // A setting wins over the workspace, by the setting's glob (the mapping's own files rule is not asked).
  assert.equal(chooseMapping([set('team', '**/*.runlog.jsonl', team), ws('crew', crew)], crewText, '/w/a/crew.runlog.jsonl')?.source.path, 'team');
  assert.equal(chooseMapping([set('team', 'logs/*.jsonl', team), ws('crew', crew)], crewText, '/w/a/crew.runlog.jsonl')?.source.path, 'crew');
  assert.equal(chooseMapping([set('team', 'logs/*.jsonl', team)], crewText, '/w/logs/x.jsonl')?.source.path, 'team');
  assert.equal(chooseMapping([set('team', 'logs/*.jsonl', team)], crewText, '/w/logs/sub/x.jsonl'), undefined);
  assert.equal(chooseMapping([set('team', '**/x.jsonl', team)], crewText, '/w/logs/sub/x.jsonl')?.source.path, 'team');
  assert.equal(chooseMapping([set('team', '**/x.jsonl', team)], crewText, '/w/logs/subx.jsonl'), undefined);
  // A broken mapping that was chosen: one error in the trace naming it, the built-in formats read the file.
  const loaded = loadWithMappings(crewText, '/w/crew.runlog.jsonl', [set('wrong.otrace-map.json', '*.runlog.jsonl', wrong), ws('crew', crew)]);
  assert.equal(loaded.mappingPath, undefined);
  assert.match(loaded.problems[0].message, /^the mapping wrong\.otrace-map\.json \(named in otrace\.mappings for "\*\.runlog\.jsonl"\) cannot be used: .* \(and \d+ more, shown in that file\); read with the built-in formats instead$/);
  assert.match(loaded.problems[1].message, /not a recognized trace format/);
  const good = loadWithMappings(crewText, '/w/crew.runlog.jsonl', [ws('crew.otrace-map.json', crew)]);
  assert.deepEqual([good.format, good.mappingPath, good.trace.events.length], ['mapping:crew-runlog', 'crew.otrace-map.json', 6]);
  // No mapping applies: the built-in formats, unchanged.
  const demo = fixture('..', '..', 'samples', 'demo.otrace.jsonl');
  assert.equal(loadWithMappings(demo, 'demo.otrace.jsonl', [ws('crew', crew)]).format, 'otrace-jsonl');
});

test('mapping file: names and values from the mapping file show their control and bidi characters in Problems, never raw', async () => {
  const { loadWithMappings } = await import('../../../src/trace/mapping-choice');
  const text = JSON.stringify({ 'ag\u202ent': 'x', id: 'a..\u202eb', time: { path: 't', unit: 'min\u0007' }, agent: 'a', type: { path: 'ty', map: { 'c\u202eall': 'nope\u001b[31m' } } });
  const { problems } = parseMapping(text, 'm\u202e.otrace-map.json');
  const messages = problems.map((p) => p.message);
  assert.ok(messages.some((m) => m.includes('"ag⟨U+202E⟩nt"')), JSON.stringify(messages));
  assert.ok(messages.some((m) => m.includes('a..⟨U+202E⟩b')), JSON.stringify(messages));
  assert.ok(messages.some((m) => m.includes('"c⟨U+202E⟩all" maps to')), JSON.stringify(messages));
  for (const m of messages) assert.doesNotMatch(m, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, m);
  // The trace's line about a broken mapping: the mapping's path and glob shown the same way.
  const broken = parseMapping(text, 'm.otrace-map.json');
  const loaded = loadWithMappings('{}\n', '/w/x\u202e.jsonl', [{ path: '/w/\u202eevil.otrace-map.json', origin: 'setting', ...broken, glob: '*\u202e.jsonl', mapping: undefined }]);
  assert.match(loaded.problems[0].message, /^the mapping \/w\/⟨U\+202E⟩evil\.otrace-map\.json \(named in otrace\.mappings for "\*⟨U\+202E⟩\.jsonl"\) cannot be used/);
});
