/**
 * `otrace query "SQL" FILE|DIR... [--json|--csv] [--outcome failure|success] [--jobs N] [--shard i/n]`:
 * SQL over a corpus through embedded DuckDB (@duckdb/node-api). The traces are read (on worker
 * threads, corpus-run.ts) into the tables `events`, `findings` and `stops` (corpus-tables.ts; only
 * those the SQL names), written as Parquet to a temporary folder, and opened as views of those names;
 * the result is printed as a table (`--json`: an array of objects; `--csv`). Values from traces go
 * through `safe` (controls shown) in the table and CSV; JSON escapes them.
 *
 * DuckDB is a native module the CLI loads only here, at run time: it is no part of the extension's
 * bundles or its VSIX (esbuild.mjs marks it external). Without it the command says how to add it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, fail, MAX_MESSAGE, safe, safeJson, terminalLine, writeLines, type Command } from './common';
import { corpusExit } from './corpus';
import { runCorpus, runOptionsOf, RUN_ARGS, RUN_USAGE, type Columns } from './corpus-run';
import { TABLES, TABLE_NAMES, type TableName } from './corpus-tables';
import { concatColumns, writeParquet } from './parquet';

/** The part of @duckdb/node-api this command uses. */
interface DuckDb {
  DuckDBInstance: {
    create(path?: string): Promise<{
      connect(): Promise<{
        run(sql: string): Promise<unknown>;
        runAndReadAll(sql: string): Promise<{ columnNames(): string[]; getRows(): unknown[][] }>;
        closeSync(): void;
      }>;
      closeSync(): void;
    }>;
  };
}

/** The module name, kept in a variable so that no bundler follows it (it stays a run-time require). */
const DUCKDB = '@duckdb/node-api';

/** Loads DuckDB, or undefined when it is not installed beside otrace. */
function loadDuckDb(): DuckDb | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at run time, never bundled (see the module comment)
    return require(DUCKDB) as DuckDb;
  } catch {
    return undefined;
  }
}

/** The tables `sql` names (a word `events`, `findings` or `stops`, any case); all three when it names none. */
export function tablesNamed(sql: string): TableName[] {
  const named = TABLE_NAMES.filter((t) => new RegExp(`\\b${t}\\b`, 'i').test(sql));
  return named.length ? named : [...TABLE_NAMES];
}

/** A value DuckDB returns, as JSON can hold it: whole numbers as numbers when exact, else as text; dates, decimals, lists as DuckDB writes them. */
export function plainValue(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return String(v);
}

/** Longest value shown in a table cell; longer ones are cut (the whole value is in --json and --csv). */
const MAX_CELL = 60;

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
function csvField(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = typeof v === 'string' ? safe(v, Infinity) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const query: Command = {
  usage: `otrace query "SQL" FILE|DIR... [--json|--csv] [--outcome failure|success] ${RUN_USAGE}   # SQL (DuckDB) over the tables events, findings, stops`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, csv: { type: 'boolean' }, outcome: { type: 'string' }, ...RUN_ARGS } });
    const [sql, ...paths] = positionals;
    if (!sql || !sql.trim()) fail('query takes the SQL first, then FILE or DIR: otrace query "SELECT mode, count(*) FROM findings GROUP BY mode" runs/');
    if (paths.length === 0) fail('query takes at least one FILE or DIR after the SQL');
    if (values.json && values.csv) fail('--json and --csv: choose one');
    const outcome = values.outcome;
    if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
    const run = runOptionsOf(values);
    const duck = loadDuckDb();
    if (!duck) {
      process.stderr.write(`otrace: ${terminalLine(`query needs DuckDB, which is not installed beside otrace: npm install ${DUCKDB} (in the folder otrace runs from), or write the tables with otrace dataset ... --format parquet and read them with any DuckDB`)}\n`);
      return EXIT.usage;
    }
    const tables = tablesNamed(sql);
    const { results, summary } = await runCorpus(paths, { kind: 'tables', tables, shape: 'columns', outcome }, run);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-query-'));
    let columns: string[];
    let rows: (string | number | boolean | null)[][];
    try {
      const db = await duck.DuckDBInstance.create(':memory:');
      const connection = await db.connect();
      try {
        for (const t of tables) {
          const file = path.join(dir, `${t}.parquet`);
          writeParquet(file, TABLES[t], concatColumns(results.map(({ result }) => (result as Record<TableName, Columns>)[t])));
          await connection.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${file.replace(/'/g, "''")}')`);
        }
        const reader = await connection.runAndReadAll(sql);
        columns = reader.columnNames();
        rows = reader.getRows().map((r) => r.map(plainValue));
      } catch (err) {
        process.stderr.write(`otrace: ${terminalLine(`the query failed: ${safe((err as Error).message ?? String(err), MAX_MESSAGE)}`)}\n`);
        return EXIT.usage;
      } finally {
        connection.closeSync();
        db.closeSync();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    if (values.json) process.stdout.write(safeJson(rows.map((r) => Object.fromEntries(columns.map((c, k) => [c, r[k]])))) + '\n');
    else if (values.csv) process.stdout.write([columns, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n');
    else writeLines(process.stdout, textTable(columns, rows));
    const exit = corpusExit(summary, paths);
    return exit;
  },
};

/** The result as aligned text: a header, a rule, the rows (cells through `safe`, cut to {@link MAX_CELL}), and the row count. */
function textTable(columns: string[], rows: (string | number | boolean | null)[][]): string[] {
  const cells = [columns.map((c) => safe(c, MAX_CELL)), ...rows.map((r) => r.map((v) => (v === null ? 'NULL' : safe(v, MAX_CELL))))];
  const numeric = columns.map((_, k) => rows.length > 0 && rows.every((r) => r[k] === null || typeof r[k] === 'number'));
  const widths = columns.map((_, k) => Math.max(...cells.map((r) => r[k].length)));
  const line = (r: string[]) => r.map((x, k) => (numeric[k] ? x.padStart(widths[k]) : x.padEnd(widths[k]))).join('  ').trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`];
}
