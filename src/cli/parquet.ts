/**
 * A table written as an Apache Parquet file through hyparquet-writer (pure JavaScript, MIT,
 * https://github.com/hyparam/hyparquet-writer): one column per table column, with the type the
 * table fixes (corpus-tables.ts), nullable, Snappy-compressed. DuckDB (`read_parquet`), Spark
 * (`spark.read.parquet`), pandas and polars read it as it is.
 */
import * as fs from 'node:fs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { Columns } from './corpus-run';
import type { TableColumn } from './corpus-tables';

/** Rows per row group: big enough for fast scans, small enough that a reader can skip by statistics. */
const ROW_GROUP = 100_000;

/**
 * The Parquet bytes of a table.
 * @param columns the table's columns (names and types; a column absent from `data` is written as nulls).
 * @param data the values by column name, row for row; `INT64` values are whole numbers (written as 64-bit integers).
 * @param meta key-value metadata for the file's footer (e.g. the command that wrote it).
 */
export function parquetBytes(columns: readonly TableColumn[], data: Columns, meta: Record<string, string> = {}): Uint8Array {
  const columnData = columns.map((c) => {
    const values = data.values[c.name] ?? new Array<null>(data.rows).fill(null);
    return { name: c.name, type: c.type, data: c.type === 'INT64' ? values.map((v) => (typeof v === 'number' ? BigInt(Math.trunc(v)) : null)) : values };
  });
  const buffer = parquetWriteBuffer({
    columnData,
    rowGroupSize: ROW_GROUP,
    createdBy: 'otrace',
    kvMetadata: Object.entries(meta).map(([key, value]) => ({ key, value })),
  });
  return new Uint8Array(buffer);
}

/**
 * Writes a table as a Parquet file (replacing any file there).
 * @throws the file system's error when `file` cannot be written.
 */
export function writeParquet(file: string, columns: readonly TableColumn[], data: Columns, meta: Record<string, string> = {}): void {
  fs.writeFileSync(file, parquetBytes(columns, data, meta));
}

/** Columns of several traces (in order) as one. */
export function concatColumns(parts: readonly Columns[]): Columns {
  const out: Columns = { rows: 0, values: {} };
  for (const p of parts) {
    for (const [name, values] of Object.entries(p.values)) {
      const into = (out.values[name] ??= new Array<null>(out.rows).fill(null));
      for (const v of values) into.push(v);
    }
    out.rows += p.rows;
    for (const into of Object.values(out.values)) while (into.length < out.rows) into.push(null);
  }
  return out;
}
