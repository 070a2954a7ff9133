/**
 * Writes media/otrace.schema.json, the JSON Schema of otrace trace documents, and
 * media/otrace-labels.schema.json, that of one line of a labels sidecar (`<trace>.labels.jsonl`),
 * both generated from their zod schemas (zod 4's z.toJSONSchema). VS Code validates and completes
 * `*.otrace.json` with the first (package.json `contributes.jsonValidation`); JSONL cannot be
 * validated that way, so the second is for other tools (the extension checks sidecars with zod).
 * Run by the build; `--check` fails when one is stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { labelsJsonSchema } from '../src/analysis/labels/sidecar';
import { traceJsonSchema } from '../src/trace/json-schema';

const media = path.join(__dirname, '..', 'media');
const outputs: [string, Record<string, unknown>][] = [
  [path.join(media, 'otrace.schema.json'), traceJsonSchema()],
  [path.join(media, 'otrace-labels.schema.json'), labelsJsonSchema()],
];
let stale = false;
for (const [out, schema] of outputs) {
  const text = JSON.stringify(schema, null, 2) + '\n';
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    if (current !== text) {
      console.error(`${out} is stale: run npm run schema`);
      stale = true;
    }
  } else {
    fs.writeFileSync(out, text);
    console.log(`wrote ${path.relative(process.cwd(), out)}`);
  }
}
if (stale) process.exit(1);
