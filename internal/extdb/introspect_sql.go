package extdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/schema/introspect"
)

// The catalog queries read pg_catalog only (information_schema hides
// rows the role has no privilege on and is slow on big schemas), each
// restricted to one schema, in one read-only transaction so the answer is
// a consistent snapshot.

const relationsSQL = `
SELECT c.relname, c.relkind::text, coalesce(parent.relname, ''),
       coalesce(obj_description(c.oid, 'pg_class'), ''),
       has_table_privilege(c.oid, 'SELECT'), has_table_privilege(c.oid, 'INSERT'),
       has_table_privilege(c.oid, 'UPDATE'), has_table_privilege(c.oid, 'DELETE')
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_inherits i ON c.relispartition AND i.inhrelid = c.oid
LEFT JOIN pg_class parent ON parent.oid = i.inhparent
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
ORDER BY c.relname`

// A domain is read as its base type (its own NOT NULL and default count
// for the column); an enum is named schema-qualified and quoted, ready
// for a cast.
const columnsSQL = `
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
       bt.typname, bt.typtype::text, bt.typcategory::text,
       CASE WHEN bt.typtype = 'e' THEN quote_ident(btn.nspname) || '.' || quote_ident(bt.typname) ELSE '' END,
       CASE WHEN bt.typname IN ('varchar', 'bpchar')
            THEN greatest(CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END - 4, 0) ELSE 0 END,
       a.attnotnull OR (t.typtype = 'd' AND t.typnotnull),
       coalesce(pg_get_expr(d.adbin, d.adrelid), CASE WHEN t.typtype = 'd' THEN t.typdefault END, ''),
       a.attidentity::text, a.attgenerated <> '',
       coalesce(col_description(c.oid, a.attnum), '')
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
JOIN pg_namespace btn ON btn.oid = bt.typnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum`

const constraintsSQL = `
SELECT c.relname, co.conname, co.contype::text,
       ARRAY(SELECT a.attname FROM unnest(co.conkey) WITH ORDINALITY k(num, ord)
             JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.num ORDER BY k.ord)::text[],
       pg_get_constraintdef(co.oid),
       coalesce(fn.nspname, ''), coalesce(fc.relname, ''),
       ARRAY(SELECT a.attname FROM unnest(co.confkey) WITH ORDINALITY k(num, ord)
             JOIN pg_attribute a ON a.attrelid = co.confrelid AND a.attnum = k.num ORDER BY k.ord)::text[],
       co.confdeltype::text
FROM pg_constraint co
JOIN pg_class c ON c.oid = co.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class fc ON fc.oid = co.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE n.nspname = $1 AND co.contype IN ('p', 'u', 'c', 'f')
ORDER BY c.relname, co.conname`

// Key columns that are expressions come back as empty names.
const indexesSQL = `
SELECT c.relname, ic.relname,
       ARRAY(SELECT coalesce(a.attname, '') FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(num, ord)
             LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.num AND k.num > 0
             WHERE k.ord <= ix.indnkeyatts ORDER BY k.ord)::text[],
       ix.indisunique, ix.indisprimary, ix.indpred IS NOT NULL OR ix.indexprs IS NOT NULL, am.amname
FROM pg_index ix
JOIN pg_class ic ON ic.oid = ix.indexrelid
JOIN pg_class c ON c.oid = ix.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_am am ON am.oid = ic.relam
WHERE n.nspname = $1
ORDER BY c.relname, ic.relname`

const enumsSQL = `
SELECT quote_ident(n.nspname) || '.' || quote_ident(t.typname), e.enumlabel
FROM pg_enum e
JOIN pg_type t ON t.oid = e.enumtypid
JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.oid IN (
    SELECT CASE WHEN at.typtype = 'd' THEN at.typbasetype ELSE at.oid END
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace cn ON cn.oid = c.relnamespace
    JOIN pg_type at ON at.oid = a.atttypid
    WHERE cn.nspname = $1 AND a.attnum > 0)
ORDER BY 1, e.enumsortorder`

// readCatalog reads the catalog rows of one schema.
func readCatalog(ctx context.Context, tx *sql.Tx, schemaName string) (introspect.Catalog, error) {
	cat := introspect.Catalog{Schema: schemaName, Enums: map[string][]string{}}
	err := each(ctx, tx, relationsSQL, schemaName, func(rows *sql.Rows) error {
		var r introspect.CatalogRelation
		err := rows.Scan(&r.Name, &r.Kind, &r.PartitionOf, &r.Comment, &r.CanSelect, &r.CanInsert, &r.CanUpdate, &r.CanDelete)
		cat.Relations = append(cat.Relations, r)
		return err
	})
	if err != nil {
		return cat, fmt.Errorf("read relations: %w", err)
	}
	err = each(ctx, tx, columnsSQL, schemaName, func(rows *sql.Rows) error {
		var c introspect.CatalogColumn
		err := rows.Scan(&c.Table, &c.Name, &c.Type, &c.BaseType, &c.TypeKind, &c.Category, &c.EnumType,
			&c.Length, &c.NotNull, &c.Default, &c.Identity, &c.Generated, &c.Comment)
		cat.Columns = append(cat.Columns, c)
		return err
	})
	if err != nil {
		return cat, fmt.Errorf("read columns: %w", err)
	}
	err = each(ctx, tx, constraintsSQL, schemaName, func(rows *sql.Rows) error {
		var c introspect.CatalogConstraint
		err := rows.Scan(&c.Table, &c.Name, &c.Kind, pq.Array(&c.Columns), &c.Definition,
			&c.RefSchema, &c.RefTable, pq.Array(&c.RefColumns), &c.OnDelete)
		cat.Constraints = append(cat.Constraints, c)
		return err
	})
	if err != nil {
		return cat, fmt.Errorf("read constraints: %w", err)
	}
	err = each(ctx, tx, indexesSQL, schemaName, func(rows *sql.Rows) error {
		var ix introspect.CatalogIndex
		err := rows.Scan(&ix.Table, &ix.Name, pq.Array(&ix.Columns), &ix.Unique, &ix.Primary, &ix.Partial, &ix.Method)
		cat.Indexes = append(cat.Indexes, ix)
		return err
	})
	if err != nil {
		return cat, fmt.Errorf("read indexes: %w", err)
	}
	err = each(ctx, tx, enumsSQL, schemaName, func(rows *sql.Rows) error {
		var typ, label string
		err := rows.Scan(&typ, &label)
		cat.Enums[typ] = append(cat.Enums[typ], label)
		return err
	})
	if err != nil {
		return cat, fmt.Errorf("read enum types: %w", err)
	}
	return cat, nil
}

func each(ctx context.Context, tx *sql.Tx, query, arg string, scan func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
