/**
 * The JSON Schema (draft 2020-12) of otrace trace documents, generated from the zod schema with
 * zod 4's z.toJSONSchema. The per-type rules that zod checks in code (a stop needs `reason`, a
 * reward needs `value`) are added as if/then clauses so editors check them too.
 */
import * as z from 'zod';
import { EventObjectSchema, TraceSchema } from './schema';

/** The JSON Schema object for `*.otrace.json` files. */
export function traceJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TraceSchema.extend({ events: z.array(EventObjectSchema) }), {
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const events = (schema.properties as Record<string, { items: Record<string, unknown> }>).events;
  events.items.allOf = [
    { if: { properties: { type: { const: 'stop' } }, required: ['type'] }, then: { required: ['reason'] } },
    { if: { properties: { type: { const: 'reward' } }, required: ['type'] }, then: { required: ['value'] } },
  ];
  return {
    $schema: schema.$schema,
    $id: 'https://otrace.dev/schema/otrace.schema.json',
    title: 'otrace orchestration trace',
    description: 'A multi-agent orchestration trace: a superset of the survey trace schema (arXiv 2605.02801).',
    ...schema,
  };
}
