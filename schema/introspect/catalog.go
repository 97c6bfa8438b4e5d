// Package introspect reads an existing PostgreSQL schema (as catalog rows
// that internal/extdb reads) into a schema document, and reconciles a
// fronted project's documents with a later reading of its database. Like
// schema, it does no I/O. catalog.go holds the catalog rows it reads,
// read.go the mapping of those rows to a document, sqlexpr.go the parser
// of default and check expressions, refresh.go the reconciliation.
package introspect

// Catalog is what introspection reads from an existing database's system
// catalogs for one PostgreSQL schema: plain rows, read by a caller
// (internal/extdb), so this package stays free of I/O.
type Catalog struct {
	Schema      string
	Relations   []CatalogRelation
	Columns     []CatalogColumn
	Constraints []CatalogConstraint
	Indexes     []CatalogIndex
	// Enums maps a qualified enum type name ("shop"."status" as the
	// columns name it in EnumType) to its labels in sort order.
	Enums map[string][]string
}

// CatalogRelation is a table, view or similar relation of the schema.
type CatalogRelation struct {
	Name string
	// Kind is pg_class.relkind: r table, p partitioned table, v view,
	// m materialized view, f foreign table.
	Kind string
	// PartitionOf names the parent of a partition.
	PartitionOf string
	Comment     string
	// Privileges of the connecting role on the relation.
	CanSelect, CanInsert, CanUpdate, CanDelete bool
}

// CatalogColumn is one column of a relation.
type CatalogColumn struct {
	Table string
	Name  string
	// Type is the column's type as the database prints it (format_type).
	Type string
	// BaseType is pg_type.typname of the type, or of a domain's base type.
	BaseType string
	// TypeKind is pg_type.typtype of BaseType: b base, e enum, c
	// composite, r range, m multirange, p pseudo.
	TypeKind string
	// Category is pg_type.typcategory of BaseType (A for arrays).
	Category string
	// EnumType is the qualified, quoted name of an enum type.
	EnumType string
	// Length is the declared length of varchar(n) and char(n), else 0.
	Length  int
	NotNull bool
	// Default is the default expression as pg_get_expr prints it.
	Default string
	// Identity is a (GENERATED ALWAYS), d (BY DEFAULT) or "".
	Identity  string
	Generated bool
	Comment   string
}

// CatalogConstraint is a primary key, unique, check or foreign-key
// constraint.
type CatalogConstraint struct {
	Table string
	Name  string
	// Kind is pg_constraint.contype: p, u, c or f.
	Kind    string
	Columns []string
	// Definition is pg_get_constraintdef's text.
	Definition string
	RefSchema  string
	RefTable   string
	RefColumns []string
	// OnDelete is confdeltype: a no action, r restrict, c cascade,
	// n set null, d set default.
	OnDelete string
}

// CatalogIndex is an index of a table.
type CatalogIndex struct {
	Table string
	Name  string
	// Columns lists the key columns; "" stands for an expression.
	Columns []string
	Unique  bool
	Primary bool
	Partial bool
	Method  string
}
