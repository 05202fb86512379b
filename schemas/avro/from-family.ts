import type { FamilyDecl, FieldDecl, LogicalType } from '../family-dsl.ts';

/** A JSON Avro schema (avsc's own `Schema` typing rejects readonly literals). */
export type AvroSchemaJson = Readonly<Record<string, unknown>>;

/**
 * The Avro record of a family declaration (schemas/families.ts). Docs are not emitted: the generated JSON equals
 * the v1 hand-written schemas exactly (schemas/avro/from-family.test.ts), not only their canonical form.
 */
export function avroRecord(decl: FamilyDecl): AvroSchemaJson {
  const firstAdded = decl.fields.findIndex((f) => f.added === true);
  if (firstAdded >= 0 && decl.fields.slice(firstAdded).some((f) => f.added !== true)) {
    throw new Error(`${decl.record}: fields added after v1 must come after every v1 field`);
  }
  return { type: 'record', name: decl.record, namespace: decl.namespace, fields: decl.fields.map(avroField) };
}

function avroField(f: FieldDecl): AvroSchemaJson {
  if (f.type.kind === 'optional') return { name: f.name, type: ['null', avroType(f.type.of)], default: null };
  return f.avroDefault === undefined
    ? { name: f.name, type: avroType(f.type) }
    : { name: f.name, type: avroType(f.type), default: f.avroDefault };
}

function avroType(t: LogicalType): unknown {
  switch (t.kind) {
    case 'string':
    case 'double':
    case 'long':
    case 'boolean':
      return t.kind;
    case 'timestamp-ms':
      return { type: 'long', logicalType: 'timestamp-millis' };
    case 'enum':
      return { type: 'enum', name: t.name, symbols: [...t.symbols] };
    case 'optional':
      return ['null', avroType(t.of)];
    case 'array':
      return { type: 'array', items: avroType(t.of) };
  }
}

/** Names of the fields added after v1 (`added(...)`): an event may omit them; the codec writes null. */
export function addedFieldNames(decl: FamilyDecl): readonly string[] {
  return decl.fields.filter((f) => f.added === true).map((f) => f.name);
}
