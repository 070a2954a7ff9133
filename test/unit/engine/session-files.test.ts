/**
 * The worker's SessionFiles hands the lines appended to a followed trace to its growing import:
 * appends go into the import's state (not a whole read), a document's text or a truncated file
 * reads whole, and each read equals a fresh read of the file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SessionFiles } from '../../../src/engine/session-input';
import type { LoadRequest } from '../../../src/engine/worker-protocol';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import type { LoadedTrace } from '../../../src/trace/model';

const NO_MAPPINGS: MappingSource[] = [];
const plain = (t: LoadedTrace) => JSON.parse(JSON.stringify(t));

describe('SessionFiles and the growing import', () => {
  it('takes appended lines into the import kept, and reads a document or a truncated file whole', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-session-files-'));
    const file = path.join(dir, 'run.otrace.jsonl');
    const line = (k: number) => `${JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'a' : 'b', ...(k > 0 ? { causes: [`e${k - 1}`] } : {}) })}\n`;
    let text = '';
    for (let k = 0; k < 5; k++) text += line(k);
    fs.writeFileSync(file, text);
    const files = new SessionFiles();
    const request: LoadRequest = { key: 'k', version: -1, path: file, local: true };
    const read = (r: LoadRequest, what: string) => {
      const got = files.read(r, NO_MAPPINGS, true);
      assert.notEqual(got, 'unchanged', what);
      if (got === 'unchanged') return;
      files.kept();
      assert.deepEqual(plain(got.loaded), plain(loadTrace(r.text ?? fs.readFileSync(file, 'utf8'), file)), `${what}: the same trace as a fresh read`);
      return got;
    };
    read(request, 'first read');
    assert.deepEqual(files.growing.counts, { appended: 0, whole: 1 });

    for (let k = 5; k < 8; k++) fs.appendFileSync(file, line(k));
    const grown = read({ ...request, changed: [file] }, 'after an append');
    assert.equal(grown?.grew, true);
    assert.equal(grown?.loaded.trace.events.length, 8);
    assert.deepEqual(files.growing.counts, { appended: 1, whole: 1 }, 'the append went into the import kept');
    assert.equal(files.read({ ...request, changed: [file] }, NO_MAPPINGS, true), 'unchanged');

    read({ ...request, version: 3, text: fs.readFileSync(file, 'utf8') + line(8) }, 'a document with an edit');
    read({ ...request, changed: [file] }, 'the file again after the document');
    assert.equal(files.growing.counts.whole, 2, 'after a document, the file reads whole');

    fs.writeFileSync(file, line(0) + line(1));
    read({ ...request, changed: [file] }, 'truncated');
    assert.equal(files.growing.counts.whole, 3, 'a truncated file reads whole');
    fs.appendFileSync(file, line(2));
    read({ ...request, changed: [file] }, 'appended after the truncation');
    assert.equal(files.growing.counts.appended, 2);
  });
});
