/**
 * Rows of a table written to a file while a corpus is still read (`otrace dataset ... -o FILE`,
 * dataset.ts): each trace's rows as they come, in file order, and at the end only the traces kept.
 */
import * as fs from 'node:fs';

/**
 * The JSONL rows of traces written to a file as they come, each trace's start remembered, so that the
 * file can be made to hold exactly the traces kept at the end (a trace written before the parent that
 * pulls it in was read is cut out, with what follows it written again).
 */
export class WrittenRows {
  private readonly traces: { result: unknown; at: number }[] = [];
  /** Bytes written so far (the file's length). */
  private end = 0;

  /** @param fd a file opened for writing from its start (`-o FILE`), not a pipe. */
  constructor(private readonly fd: number) {}

  /** Writes a trace's rows (its JSONL text, if it has rows) after those written before. */
  add(result: unknown, text: string | undefined): void {
    this.traces.push({ result, at: this.end });
    if (text) this.end += fs.writeSync(this.fd, text, this.end);
  }

  /**
   * Makes the file hold the rows of `kept` only, in their order: the traces written (in order) from
   * the first that is not kept are cut off, and the kept ones from there written again.
   * @param kept some of the traces added (`result` as given to {@link add}, compared by identity), in
   *   the order they were added, each with its text.
   */
  keepOnly(kept: { result: unknown; text: string | undefined }[]): void {
    let same = 0;
    while (same < kept.length && same < this.traces.length && kept[same].result === this.traces[same].result) same++;
    if (same === this.traces.length) return;
    let at = this.traces[same].at;
    fs.ftruncateSync(this.fd, at);
    for (const { text } of kept.slice(same)) if (text) at += fs.writeSync(this.fd, text, at);
  }
}
