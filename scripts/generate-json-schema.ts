/**
 * Writes media/otrace.schema.json, the JSON Schema of otrace trace documents, generated from the
 * zod schema (zod 4's z.toJSONSchema). VS Code validates and completes `*.otrace.json` with it
 * (package.json `contributes.jsonValidation`). Run by the build; `--check` fails when it is stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { traceJsonSchema } from '../src/trace/json-schema';

const out = path.join(__dirname, '..', 'media', 'otrace.schema.json');
const text = JSON.stringify(traceJsonSchema(), null, 2) + '\n';
if (process.argv.includes('--check')) {
  const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  if (current !== text) {
    console.error(`${out} is stale: run npm run schema`);
    process.exit(1);
  }
} else {
  fs.writeFileSync(out, text);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}
