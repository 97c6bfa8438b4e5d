package schema

import "strings"

//go:generate go test -run ^TestTheDashboardsCopyOfTheColumnTypeRegistryIsCurrent$ -update-dashboard .

// ColumnType is one column type of CONTRACT 4.1 and everything the layers
// need to know about it: how PostgreSQL stores it, how a JSON value and a
// query-string value are read, what the OpenAPI document says of it, which
// constraints, operators, aggregates and indexes apply (its Traits), and
// how its values convert to other types. Each type is one entry, in its
// own file (type_<name>.go), listed once in columnTypes; the validator,
// the DDL, the migrations, translate, openapi and the dashboard (through
// the file dashboardTypesFile renders) read the entry and nothing else.
//
// The unexported fields are the entry's behaviour; the exported methods
// below are how other packages use it.
type ColumnType struct {
	// Name is the type's name in the schema document.
	Name string
	// Label is how the builder names the type.
	Label string
	// PG is the PostgreSQL type that stores the type's values; "" for
	// passthrough, whose column names its own (Column.PGType).
	PG string
	// Offered is false for the types a user cannot choose (passthrough,
	// which only introspection of a fronted database writes).
	Offered bool
	// Traits say which rules, operators, aggregates and indexes apply.
	Traits Traits
	// Literal is how a value is written in a filter expression.
	Literal Literal
	// Example is a JSON value a column of the type without constraints
	// accepts (as encoding/json decodes it); the tests and the dashboard
	// use it. An enum's example is also the values its sample column takes.
	Example any
	// Fronts lists the PostgreSQL base types (pg_type.typname) that
	// introspection of a fronted database reads as this type.
	Fronts []string

	// check reads a JSON-decoded value (numbers as json.Number), see CheckValue.
	check func(c *Column, v any) (any, string)
	// parseQuery reads a value written in a URL, see ParseQueryValue.
	parseQuery func(c *Column, s string) (any, string)
	// document describes a non-null value for the OpenAPI document.
	document func(c *Column, forRequest bool) ValueSchema
	// anyValue is set when a value may be any JSON value (json): the
	// document then lists every JSON type, with null when nullable.
	anyValue bool
	// query is the shared schema of a filter value; nil means the string
	// one (QueryString). queryInline replaces it with the column's own.
	query       *NamedSchema
	queryInline func(c *Column) ValueSchema
	// nowSQL is the SQL of the "now" default; "" when it has none.
	nowSQL string
	// checkSQL adds a rule of the type's own to column c's check
	// constraint (over the SQL expression col), described by checkRule.
	checkSQL  func(c Column, col string) string
	checkRule func(c Column) string
	// format is the SQL form of the validator's format check that the
	// prechecks of a type change run; nil when the database's own type
	// checks the format.
	format *sqlFormat
	// output renders a stored value the way records show it (ref is a
	// column reference); nil shows it as stored.
	output func(ref string) string
	// recordOutput renders column c of the record at alias the way
	// records show it, when that needs more of the record than the
	// column (a file's URL holds the record's id); it wins over output.
	recordOutput func(c *CColumn, alias string) string
	// asText renders a value as text the way the API shows it, for a
	// change to a text-like type; nil casts it (::text).
	asText func(col string) string
	// fromText converts text-like values to this type; nil when text does
	// not convert to it.
	fromText *conversion
	// from holds the conversions from other types that are not text-like.
	from map[string]conversion
	// fixed says why values never convert to or from this type; "" when
	// they may.
	fixed string
	// minLength is the least length of a value when the column sets no
	// min_length (passwords).
	minLength int
	// normalize rewrites a string before it is checked and stored
	// (e-mails are trimmed and lower-cased).
	normalize func(s string) string
	// textFormat checks a string's shape after normalize (e-mail, URL);
	// it answers a problem message or "".
	textFormat func(s string) string
}

// Traits are what a type's values are like; rules elsewhere name a trait,
// never a type.
type Traits struct {
	// Textual values are text the search matches, like and ~ apply to,
	// and a trigram index serves (searchable).
	Textual bool `json:"textual"`
	// Ordered values have an order that means something to a client: the
	// document and the dashboard offer gt, gte, lt and lte on them (the
	// server orders every comparable type).
	Ordered bool `json:"ordered"`
	// Numeric values take min and max, and the sum and avg aggregates.
	Numeric bool `json:"numeric"`
	// MinMax values take the min and max aggregates.
	MinMax bool `json:"min_max"`
	// Comparable values are compared in filters, sorted and grouped by.
	Comparable bool `json:"comparable"`
	// Unique columns of the type may be unique.
	Unique bool `json:"unique"`
	// Indexable columns are served by a btree index on (column, id),
	// which the builder offers; index on a column of another type is
	// refused (a json column: nothing reads one through an index, and
	// its documents do not fit one).
	Indexable bool `json:"indexable"`
	// Lengths lets a column set min_length, max_length and pattern.
	Lengths bool `json:"lengths"`
	// Enumerated columns list their values.
	Enumerated bool `json:"enumerated"`
	// Secret values are write-only hashes: never returned, filtered,
	// sorted, made unique, indexed or given a default.
	Secret bool `json:"secret"`
	// Markup columns may keep HTML (html).
	Markup bool `json:"markup"`
	// Key values can be a table's id, so a column of the type may
	// reference one.
	Key bool `json:"key"`
	// Exact values are computed as text in aggregates, so no digit is
	// lost to a float.
	Exact bool `json:"exact"`
	// Whole values are integers: their average is computed exactly, as text.
	Whole bool `json:"whole"`
	// Float values are binary floating point: NaN and ±Infinity exist,
	// and records write them as strings.
	Float bool `json:"float"`
	// ReadOnly columns are never written through the API (passthrough).
	ReadOnly bool `json:"read_only"`
	// Upload values are files the server stored from an upload (file,
	// files): never filtered, sorted, unique, indexed or given a default.
	Upload bool `json:"upload"`
	// Many values are lists (files).
	Many bool `json:"many"`
}

// Literal is the kind of filter-expression literal a type's values are
// written as.
type Literal string

// Literal kinds.
const (
	LiteralNumber Literal = "number"
	LiteralString Literal = "string"
	LiteralBool   Literal = "boolean"
)

// NamedSchema is a value schema shared under a name in the document's
// components.
type NamedSchema struct {
	Name   string
	Schema ValueSchema
}

// ValueSchema is what the OpenAPI document says of one value, in the
// terms of JSON Schema; openapi renders it.
type ValueSchema struct {
	Types  []string
	Format string
	// Patterns must all match: the first is the schema's pattern, the
	// others go in allOf (a schema has one pattern keyword).
	Patterns             []string
	MinLength, MaxLength *int64
	Minimum, Maximum     *float64
	// Enum lists the allowed values: strings, and nil for null.
	Enum        []any
	WriteOnly   bool
	Description string
	Examples    []string
	// Ref names a shared schema of the document (components) that an
	// object value is; Items is what an array's items are.
	Ref   string
	Items *ValueSchema
}

// sqlFormat is a format check in SQL: cond is true when the text value v
// passes it; rule says it in words.
type sqlFormat struct {
	cond func(v string) string
	rule string
}

// columnTypes are the registered types, in the builder's order;
// passthrough comes last and is not offered.
var columnTypes = []*ColumnType{
	textType, integerType, numberType, decimalType, booleanType, timestampType, dateType,
	emailType, urlType, uuidType, enumType, jsonType, passwordType, fileType, filesType, passthroughType,
}

// typesByName indexes columnTypes. It is filled in init because the
// entries' functions look types up by name, which a variable's
// initializer may not depend on.
var typesByName map[string]*ColumnType

func init() {
	typesByName = make(map[string]*ColumnType, len(columnTypes))
	for _, t := range columnTypes {
		typesByName[t.Name] = t
	}
}

// ColumnTypes lists every registered type in the builder's order, the
// ones a user cannot choose last.
func ColumnTypes() []*ColumnType { return append([]*ColumnType(nil), columnTypes...) }

// TypeOf returns the registered type of a name.
func TypeOf(name string) (*ColumnType, bool) {
	t, ok := typesByName[name]
	return t, ok
}

// unknownType stands in for a name no entry has, so that code reading a
// column of a document that failed validation finds every trait false.
var unknownType = &ColumnType{
	check:      func(*Column, any) (any, string) { return nil, "has an unknown type" },
	parseQuery: func(*Column, string) (any, string) { return nil, "cannot be filtered" },
	document:   func(*Column, bool) ValueSchema { return ValueSchema{} },
	Literal:    LiteralString,
}

// typeOf is TypeOf with unknownType for names no entry has.
func typeOf(name string) *ColumnType {
	if t, ok := typesByName[name]; ok {
		return t
	}
	return unknownType
}

// Types lists the column types a user may choose, in the builder's order.
var Types = func() []string {
	var names []string
	for _, t := range columnTypes {
		if t.Offered {
			names = append(names, t.Name)
		}
	}
	return names
}()

// typeNames names the offered types with a trait, as a sentence lists
// them: "integer, number and decimal".
func typeNames(has func(Traits) bool) string {
	var names []string
	for _, t := range columnTypes {
		if t.Offered && has(t.Traits) {
			names = append(names, t.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Check reads a JSON-decoded value for column c (which has this type):
// the value in the form bound as a SQL parameter, or a problem message.
// See CheckValue.
func (t *ColumnType) Check(c *Column, v any) (any, string) { return t.check(c, v) }

// ParseQuery reads a value written in a URL (a filter value) for column
// c: the bound-parameter form, or a problem message.
func (t *ColumnType) ParseQuery(c *Column, s string) (any, string) { return t.parseQuery(c, s) }

// Document describes a value of column c for the OpenAPI document: as a
// request body carries it (forRequest) or as a record returns it, with
// null among the values when nullable.
func (t *ColumnType) Document(c *Column, forRequest, nullable bool) ValueSchema {
	s := t.document(c, forRequest)
	switch {
	case t.anyValue:
		// No type keyword takes every value, null included; without
		// null, every other JSON type.
		if !nullable {
			s.Types = []string{"object", "array", "string", "number", "boolean"}
		}
	case t.Traits.ReadOnly:
		// A passthrough column's document says only its database type.
	case nullable:
		s.Types = append(s.Types, "null")
		if len(s.Enum) > 0 {
			s.Enum = append(s.Enum, nil)
		}
	}
	return s
}

// QueryValue is the schema of one filter value of column c: a shared one
// by name, or (inline non-nil) the column's own.
func (t *ColumnType) QueryValue(c *Column) (name string, inline *ValueSchema) {
	if t.queryInline != nil {
		s := t.queryInline(c)
		return "", &s
	}
	if t.query != nil {
		return t.query.Name, nil
	}
	return QueryString.Name, nil
}

// Output renders the column reference ref the way a record shows its
// value, and reports whether that differs from the stored value.
func (t *ColumnType) Output(ref string) (string, bool) {
	if t.output == nil {
		return ref, false
	}
	return t.output(ref), true
}

// OutputIn renders column c of the record at alias the way a record
// shows its value, and reports whether that differs from the stored value.
func (t *ColumnType) OutputIn(c *CColumn, alias string) (string, bool) {
	if t.recordOutput != nil {
		return t.recordOutput(c, alias), true
	}
	return t.Output(alias + "." + c.Ident)
}

// QueryString is the shared schema of filter values written as text.
var QueryString = &NamedSchema{Name: "FilterString", Schema: ValueSchema{Types: []string{"string"}}}

// QuerySchemas lists the shared filter value schemas in a fixed order:
// each type's in the registry's order, the string one last.
func QuerySchemas() []NamedSchema {
	var out []NamedSchema
	seen := map[string]bool{QueryString.Name: true}
	for _, t := range columnTypes {
		if t.query != nil && !seen[t.query.Name] {
			seen[t.query.Name] = true
			out = append(out, *t.query)
		}
	}
	return append(out, *QueryString)
}

// QuerySchemaName is the name of the shared filter value schema of a type.
func QuerySchemaName(typ string) string {
	if q := typeOf(typ).query; q != nil {
		return q.Name
	}
	return QueryString.Name
}

// storedLengths reports whether the column's check constraint bounds the
// length of its stored text: a password stores a hash and an enum's
// values bound themselves, so theirs are checked on writes only.
func (t *ColumnType) storedLengths() bool {
	return t.Traits.Lengths && !t.Traits.Enumerated && !t.Traits.Secret
}
