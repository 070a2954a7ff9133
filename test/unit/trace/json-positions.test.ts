import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getNodeValue, parseTree, type Node } from 'jsonc-parser';
import { parseJsonDocument } from '../../../src/trace/json-positions';
import { fixturePath } from '../helpers';

/** Every node as [type, offset, length, value of a primitive, colonOffset], depth first. */
function flat(node: Node | undefined, out: unknown[] = []): unknown[] {
  if (!node) return out;
  const primitive = node.type !== 'object' && node.type !== 'array' && node.type !== 'property';
  out.push([node.type, node.offset, node.length, primitive ? getNodeValue(node) : undefined, node.colonOffset]);
  for (const c of node.children ?? []) {
    assert.equal(c.parent, node, 'each child points at its parent');
    flat(c, out);
  }
  return out;
}

test('valid JSON: the lazy position tree has the nodes, offsets, lengths and values of jsonc-parser\'s tree', () => {
  const texts = [
    '{"a": [1, -2.5e3, true, false, null, "x\\"y\\\\", {"b": {}}, []], "c\\u0041": "\\ud83d\\ude00", "": ""}',
    ' \r\n\t[ ] ',
    '"only a string"',
    '42',
    '{"dup": 1, "dup": 2}',
    '[{"k":"\\\\\\\\"},"\\\\"]',
  ];
  for (const dir of ['jaeger', 'zipkin', 'langfuse', 'agentops', 'survey']) {
    for (const f of fs.readdirSync(fixturePath(dir))) if (f.endsWith('.json')) texts.push(fs.readFileSync(path.join(fixturePath(dir), f), 'utf8'));
  }
  for (const text of texts) {
    const doc = parseJsonDocument(text);
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(flat(doc.root), flat(parseTree(text, [], { disallowComments: true, allowTrailingComma: false })), text.slice(0, 60));
  }
});

test('damaged JSON still gets jsonc-parser\'s tree and a positioned syntax error', () => {
  const doc = parseJsonDocument('{"a": [1, 2,, 3], "b": 4}');
  assert.equal(doc.problems.length, 1);
  assert.match(doc.problems[0].message, /JSON syntax error/);
  assert.equal(doc.root?.children?.length, 2);
});
