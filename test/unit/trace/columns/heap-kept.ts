/**
 * Run by columns-heap.test.ts in a child process (node --expose-gc): reads a generated otrace
 * JSONL trace of N events with one reader ("columns" or "objects" from a Buffer, "text" from the
 * decoded text, as an editor's document is read) and prints the bytes per event the result keeps
 * (V8 heap plus array buffers, after full collections, less what was there before the read: the
 * file's bytes and text, and the modules).
 *   node --expose-gc --import tsx heap-kept.ts columns|objects|text N
 */
import { generateRecords } from '../../../../bench/_generate';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';
import { readTraceJsonl, readTraceJsonlBytes } from '../../../../src/trace/read';

const which = process.argv[2];
const n = Number(process.argv[3]);
const lines = [JSON.stringify({ trace_id: 'heap', task_id: 'heap' })];
let events = 0;
for (const r of generateRecords(n)) {
  if ('event' in r && events++ === n) break;
  lines.push(JSON.stringify('event' in r ? r.event : r));
}
const buf = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
lines.length = 0;
const text = which === 'text' ? buf.toString('utf8') : '';
const read = (b: Buffer, offset: number, length: number, position: number) => buf.copy(b, offset, position, Math.min(buf.length, position + length));
const readLine = (offset: number, bytes: number) => buf.toString('utf8', offset, offset + bytes);
const gc = (globalThis as { gc?: () => void }).gc!;
// a read before the one measured: the code compiled, the shape tables of the fast check made
readTraceColumns(read, readLine, undefined, buf.length);
readTraceJsonlBytes(read, readLine, undefined, buf.length);
if (text) readTraceJsonl(text);
const used = () => {
  for (let k = 0; k < 3; k++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const before = used();
const kept = which === 'columns' ? readTraceColumns(read, readLine, undefined, buf.length) : which === 'text' ? readTraceJsonl(text) : readTraceJsonlBytes(read, readLine, undefined, buf.length);
const after = used();
const count = 'columns' in kept ? kept.columns.eventCount : kept.trace.events.length;
process.stdout.write(JSON.stringify({ events: count, bytesPerEvent: (after - before) / count }));
