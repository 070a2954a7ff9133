/**
 * The findings' diagnostics of a followed trace (src/engine/summary.ts `findingDiagnostics`): a
 * finding an append's analysis finds again, naming the same old events, takes the diagnostic made
 * for the last analysis; each analysed snapshot's diagnostics equal those made whole.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeSnapshot, type TraceSnapshot } from '../../../src/engine/snapshot';
import { findingDiagnosticsKept, forgetFindingDiagnostics, sessionDiagnostics } from '../../../src/engine/summary';
import { writeOtraceTrace } from '../../../bench/live';
import { followedFile } from './followed-file';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-finding-diagnostics-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** The diagnostics of `snapshot` made whole: none kept from an earlier list (a copy of its findings list, nothing remembered). */
function madeWhole(snapshot: TraceSnapshot): string {
  forgetFindingDiagnostics();
  return JSON.stringify(sessionDiagnostics({ ...snapshot, findings: [...snapshot.findings] }));
}

describe("a followed trace's findings as diagnostics", () => {
  it('takes the diagnostics of the findings found again, and equals the diagnostics made whole after each append', () => {
    const file = path.join(DIR, 'generated.otrace.jsonl');
    const more = writeOtraceTrace(file, 3000, 500);
    const load = followedFile(file);
    load();
    const first = makeSnapshot('k', 1, file, load());
    sessionDiagnostics(first);
    assert.ok(first.findings.length > 5, `${first.findings.length} findings`);
    const keptBefore = findingDiagnosticsKept();
    for (let k = 0; k < 5; k++) {
      fs.appendFileSync(file, `${more.slice(k * 100, (k + 1) * 100).join('\n')}\n`);
      const snapshot = makeSnapshot('k', 2 + k, file, load());
      const got = JSON.stringify(sessionDiagnostics(snapshot));
      assert.equal(got, madeWhole(snapshot), `append ${k}: the same diagnostics as made whole`);
      // what the next append reuses is this snapshot's (made whole just above: the same items)
    }
    assert.ok(findingDiagnosticsKept() - keptBefore > 10, `${findingDiagnosticsKept() - keptBefore} diagnostics taken from the list before`);
  });

  it('makes every diagnostic again for a trace whose events are other records (a file read again whole)', () => {
    const file = path.join(DIR, 'reread.otrace.jsonl');
    writeOtraceTrace(file, 2000, 0);
    const read = () => makeSnapshot('r', 1, file, followedFile(file)());
    sessionDiagnostics(read());
    const keptBefore = findingDiagnosticsKept();
    const again = read();
    assert.equal(JSON.stringify(sessionDiagnostics(again)), madeWhole(again));
    assert.equal(findingDiagnosticsKept(), keptBefore, 'nothing taken: the events are other objects');
  });
});
