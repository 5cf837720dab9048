type Json = Record<string, unknown>;

/** Values for what no schema gives an example of, by format: one tenant's consistent ids and times. */
const BY_FORMAT: Record<string, unknown> = {
  uuid: '7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f',
  'date-time': '2026-11-26T10:15:30.000Z',
  date: '2026-12-31',
  email: 'ada@example.com',
};

/**
 * An example of a schema: the one its author gave (`examples`, `example`, `default`), else one
 * made of its parts' examples. Resources carry hand-written examples in the schema files; this
 * assembles the envelopes (`{data}`, lists) around them.
 */
export function exampleOf(schema: Json): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) return exampleOf(branches.find((branch) => branch.type !== 'null') ?? branches[0] ?? {});
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => [name, exampleOf(property)]),
      );
    case 'array':
      return schema.items ? [exampleOf(schema.items as Json)] : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      return BY_FORMAT[String(schema.format)] ?? 'text';
    default:
      return null;
  }
}
