/**
 * A corpus in the user's data stack: `otrace dataset ... --format parquet` writes the stop data and
 * the findings as Parquet (src/cli/parquet.ts) that DuckDB reads back as they are, row for row the
 * JSONL rows; `otrace query "SQL" DIR` answers SQL over the tables events, findings and stops
 * (src/cli/query.ts). On the Who&When fixtures, through the built CLI (dist/cli.js).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { StopRow } from '../../../src/analysis/stop-dataset';
import type { FindingRow } from '../../../src/cli/corpus-tables';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const WHO = fixturePath('who-and-when');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-pq-'));

/** Rows of a SQL query run by DuckDB in memory, as plain objects (whole numbers as numbers). */
async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const r = await c.runAndReadAll(sql);
    const names = r.columnNames();
    return r.getRows().map((row) => Object.fromEntries(row.map((v, k) => [names[k], typeof v === 'bigint' ? Number(v) : v])));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

const lines = <T>(file: string): T[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);

test('dataset stops --format parquet on Who&When: DuckDB reads the rows of the JSONL, in order, and counts the stops by verdict', async () => {
  const dir = scratch();
  const pq = path.join(dir, 'stops.parquet');
  const jsonl = path.join(dir, 'stops.jsonl');
  const r = cli('dataset', 'stops', WHO, '--format', 'parquet', '-o', pq);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /132 rows from 9 traces .* -> .*stops\.parquet/);
  assert.equal(cli('dataset', 'stops', WHO, '-o', jsonl).status, 0);
  assert.equal(fs.readFileSync(pq).subarray(0, 4).toString('latin1'), 'PAR1');
  // no sidecar here: the human_* columns are null (unknown), otrace's labels say they are otrace's
  const human = { human_best_stop: null, human_stop_finding: null, human_decisive_error: null, human_good_step: null };
  const expected = lines<StopRow>(jsonl).map((row) => ({ trace: row.trace, owner: row.owner, event: row.event, type: row.type, ...row.features, ...row.labels, ...human }));
  const got = await duck(`SELECT * FROM read_parquet('${pq}')`);
  assert.equal(got.length, 132);
  assert.deepEqual(got, expected, 'every column of every row, features and labels flattened');
  // the query of the issue: the runs by the verdict at their final stop
  const byVerdict = await duck(`SELECT stop_finding AS verdict, count(DISTINCT trace) AS runs FROM read_parquet('${pq}') GROUP BY verdict ORDER BY verdict`);
  const counts = new Map<string, Set<string>>();
  for (const row of expected) (counts.get(String(row.stop_finding)) ?? counts.set(String(row.stop_finding), new Set()).get(String(row.stop_finding))!).add(row.trace);
  assert.deepEqual(byVerdict, [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([verdict, runs]) => ({ verdict, runs: runs.size })));
  assert.deepEqual(byVerdict, [{ verdict: 'no_stop', runs: 3 }, { verdict: 'ok', runs: 6 }]);
  // the types a reader sees
  const types = await duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${pq}')) WHERE column_name IN ('lane_index', 'elapsed', 'stop', 'v_stop', 'trace')`);
  assert.deepEqual(Object.fromEntries(types.map((t) => [t.column_name, t.column_type])), { trace: 'VARCHAR', lane_index: 'BIGINT', elapsed: 'DOUBLE', stop: 'BOOLEAN', v_stop: 'DOUBLE' });
});

test('dataset findings to Parquet (format from the .parquet name): DuckDB counts the stop findings by mode as the JSONL has them', async () => {
  const dir = scratch();
  const pq = path.join(dir, 'findings.parquet');
  const jsonl = path.join(dir, 'findings.jsonl');
  assert.equal(cli('dataset', 'findings', WHO, '-o', pq).status, 0);
  assert.equal(cli('dataset', 'findings', WHO, '-o', jsonl).status, 0);
  const rows = lines<FindingRow>(jsonl);
  assert.ok(rows.some((f) => f.kind === 'blame') && rows.some((f) => f.kind === 'stop'));
  assert.deepEqual(await duck(`SELECT * FROM read_parquet('${pq}')`), rows);
  const modes = await duck(`SELECT mode, count(*) AS n FROM read_parquet('${pq}') WHERE kind = 'stop' AND scope = 'run' GROUP BY mode ORDER BY mode`);
  const want = new Map<string, number>();
  for (const f of rows) if (f.kind === 'stop' && f.scope === 'run') want.set(f.mode!, (want.get(f.mode!) ?? 0) + 1);
  assert.deepEqual(modes, [...want].sort(([a], [b]) => a.localeCompare(b)).map(([mode, n]) => ({ mode, n })));
  // each finding points at its record: the line of its main event in the trace file
  const blame = rows.find((f) => f.kind === 'blame')!;
  const text = fs.readFileSync(path.join(WHO, blame.trace), 'utf8').split('\n');
  assert.ok(blame.line! >= 1 && blame.line! <= text.length);
});

test('a corpus of no traces still writes a Parquet file with the columns of its table', async () => {
  const dir = scratch();
  const empty = path.join(dir, 'empty');
  fs.mkdirSync(empty);
  const pq = path.join(dir, 'stops.parquet');
  const r = cli('dataset', 'stops', empty, '--format', 'parquet', '-o', pq);
  assert.equal(r.status, 1, 'no traces found: exit 1');
  assert.match(r.stderr, /no traces found/);
  const columns = await duck(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('${pq}'))`);
  assert.equal(columns.length, 25, 'the 20 columns of the stop rows, labels.source and the four human_* columns');
  assert.deepEqual(await duck(`SELECT count(*) AS n FROM read_parquet('${pq}')`), [{ n: 0 }]);
  assert.equal(cli('dataset', 'stops', WHO, '--format', 'parquet').status, 2, 'Parquet needs -o');
  assert.equal(cli('dataset', 'stops', WHO, '--format', 'csv', '-o', pq).status, 2);
});

test('otrace query: SQL over the events, findings and stops of a folder, as a table, JSON or CSV; a bad query is exit 2 with DuckDB\'s words', () => {
  const sql = 'SELECT stop_finding AS verdict, count(DISTINCT trace) AS runs FROM stops GROUP BY verdict ORDER BY verdict';
  const json = cli('query', sql, WHO, '--json');
  assert.equal(json.status, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), [{ verdict: 'no_stop', runs: 3 }, { verdict: 'ok', runs: 6 }]);
  const table = cli('query', sql, WHO, '--jobs', '2');
  assert.equal(table.status, 0, table.stderr);
  assert.deepEqual(table.stdout.split('\n').map((l) => l.trimEnd()), ['verdict  runs', '-------  ----', 'no_stop     3', 'ok          6', '(2 rows)', '']);
  const csv = cli('query', "SELECT e.trace, count(*) AS events, any_value(f.agent) AS blamed FROM events e LEFT JOIN (SELECT f.trace, ev.agent FROM findings f JOIN events ev ON ev.trace = f.trace AND ev.index = f.event_index WHERE f.kind = 'blame') f ON f.trace = e.trace GROUP BY e.trace ORDER BY e.trace", WHO, '--csv');
  assert.equal(csv.status, 0, csv.stderr);
  const [header, ...body] = csv.stdout.trim().split('\n');
  assert.equal(header, 'trace,events,blamed');
  assert.equal(body.length, 9);
  assert.ok(body.every((l) => /^[\w/.-]+\.json,\d+,/.test(l)), body.join('\n'));
  // a hand-back's recorded task_complete is told apart from a run's by its scope
  const scopes = cli('query', "SELECT reason, scope, count(*) AS n FROM events WHERE type = 'stop' GROUP BY ALL ORDER BY ALL", fixturePath('codex'), '--json');
  assert.equal(scopes.status, 0, scopes.stderr);
  assert.ok((JSON.parse(scopes.stdout) as { reason: string; scope: string | null }[]).some((r) => r.reason === 'task_complete' && r.scope === 'turn'), scopes.stdout);
  const bad = cli('query', 'SELECT nope FROM stops', WHO);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /the query failed: .*nope/);
});

test('people\'s labels (a sidecar beside the trace) are columns of the stop table in Parquet, as in the JSONL rows, on one thread or two', async () => {
  const LABELS = fixturePath('labels');
  const jsonl = cli('dataset', 'stops', LABELS, '--jobs', '1');
  assert.equal(jsonl.status, 0, jsonl.stderr);
  assert.match(jsonl.stderr, /human labels from 4 sidecars/);
  const rows = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l) as { trace: string; human_labels?: { best_stop: boolean | null; good_step: boolean | null } });
  const bestStops = rows.filter((r) => r.human_labels?.best_stop === true).map((r) => r.trace).sort();
  const goodSteps = rows.filter((r) => r.human_labels?.good_step === true).length;
  assert.ok(bestStops.length > 0 && goodSteps > 0, 'the hand-made sidecars mark a best stop and good steps');
  const pq = path.join(scratch(), 'stops.parquet');
  const r = cli('dataset', 'stops', LABELS, '--jobs', '2', '--format', 'parquet', '-o', pq);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /human labels from 4 sidecars/);
  const got = await duck(`SELECT trace FROM read_parquet('${pq}') WHERE human_best_stop ORDER BY trace`);
  assert.deepEqual(got.map((g) => g.trace), bestStops);
  assert.deepEqual(await duck(`SELECT count(*) AS n FROM read_parquet('${pq}') WHERE human_good_step`), [{ n: goodSteps }]);
  assert.deepEqual(await duck(`SELECT DISTINCT source FROM read_parquet('${pq}')`), [{ source: 'otrace' }]);
});
