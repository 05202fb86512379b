import { snakeCase, type FamilyDecl, type FieldDecl, type LogicalType } from '#schemas/family-dsl.ts';

/**
 * The raw-table columns a family declaration (schemas/families.ts) implies: name = snake_case of the field, type
 * from the logical type. clickhouse/columns.test.ts checks the migrations against these.
 */
export interface DeclaredColumn {
  /** Event field (camelCase). */
  readonly field: string;
  /** Column (snake_case). */
  readonly name: string;
  /** ClickHouse type as the migrations write it, e.g. `Nullable(DateTime64(3, 'UTC'))`. */
  readonly type: string;
}

export function declaredColumns(decl: FamilyDecl): readonly DeclaredColumn[] {
  return decl.fields.map((f) => ({ field: f.name, name: snakeCase(f.name), type: columnType(f) }));
}

export function columnType(f: FieldDecl): string {
  return chType(f.type, f.lowCardinality === true);
}

function chType(t: LogicalType, lowCardinality: boolean): string {
  switch (t.kind) {
    case 'string':
      return lowCardinality ? 'LowCardinality(String)' : 'String';
    case 'enum':
      return 'LowCardinality(String)';
    case 'double':
      return 'Float64';
    case 'long':
      return 'Int64';
    case 'boolean':
      return 'Bool';
    case 'timestamp-ms':
      return "DateTime64(3, 'UTC')";
    case 'array':
      return `Array(${chType(t.of, lowCardinality)})`;
    case 'optional': {
      // LowCardinality wraps Nullable, never the other way round.
      const inner = chType(t.of, lowCardinality);
      const lc = /^LowCardinality\((.*)\)$/.exec(inner);
      return lc ? `LowCardinality(Nullable(${lc[1] ?? ''}))` : `Nullable(${inner})`;
    }
  }
}
