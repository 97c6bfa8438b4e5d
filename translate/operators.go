package translate

import (
	"sort"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

//go:generate go test -run ^TestTheDashboardsCopyOfTheOperatorTableIsCurrent$ -update-dashboard .

// Operator is one comparison of the query language in every form it
// takes: its name in filter[column][name], its symbol in a filter=
// expression (which a realtime stream's where[<table>] also uses), how the
// dashboard names it, which column types take it (by their traits), and
// the SQL it renders. operators is the one table of them: the parser, the
// planner, the OpenAPI document and the dashboard (through the file the
// tests generate from it) all read it.
type Operator struct {
	// Field is the name in filter[column][name]; "" when that form lacks it.
	Field string `json:"field"`
	// Expr is the symbol in filter= and where[<table>]; "" when they lack it.
	Expr string `json:"expr"`
	// Label is how the dashboard shows it.
	Label string `json:"label"`
	// Note explains the expression symbol where it is not obvious, in the
	// document's description of filter=.
	Note string `json:"note"`
	// Value is what the operator compares a column with.
	Value OperandForm `json:"value"`
	// Textual operators apply to textual columns only (the server refuses
	// them on others).
	Textual bool `json:"textual"`
	// Range operators compare by order. The server takes them on every
	// comparable column; the document and the dashboard offer them on
	// ordered ones only (the server also orders booleans, UUIDs and enum
	// labels, which a client rarely means).
	Range bool `json:"range"`
	// sql is the SQL operator between the column and its operand.
	sql string
	// isNull is set on the expression operators that compare with null
	// (= and !=): whether the column must be NULL.
	isNull *bool
}

// OperandForm is what an operator compares a column with.
type OperandForm string

// Operand forms.
const (
	// OperandValue is one value of the column's type.
	OperandValue OperandForm = "value"
	// OperandText is text contained in the column's value, case-insensitively.
	OperandText OperandForm = "text"
	// OperandList is a comma list of values of the column's type.
	OperandList OperandForm = "list"
	// OperandBool is true or false: whether the column is null.
	OperandBool OperandForm = "boolean"
)

var (
	isNull    = true
	isNotNull = false
)

// operators are the comparisons, in the order the document lists them.
var operators = []Operator{
	{Field: "eq", Expr: "=", Label: "equals", Value: OperandValue, sql: "=", isNull: &isNull},
	{Field: "ne", Expr: "!=", Label: "is not", Value: OperandValue, sql: "<>", isNull: &isNotNull},
	{Field: "gt", Expr: ">", Label: ">", Value: OperandValue, Range: true, sql: ">"},
	{Field: "gte", Expr: ">=", Label: "≥", Value: OperandValue, Range: true, sql: ">="},
	{Field: "lt", Expr: "<", Label: "<", Value: OperandValue, Range: true, sql: "<"},
	{Field: "lte", Expr: "<=", Label: "≤", Value: OperandValue, Range: true, sql: "<="},
	{Field: "like", Expr: "~", Label: "contains", Note: "contains, case-insensitive", Value: OperandText, Textual: true, sql: "ILIKE"},
	{Expr: "!~", Label: "does not contain", Value: OperandText, Textual: true, sql: "NOT ILIKE"},
	{Field: "in", Label: "is one of (a,b)", Value: OperandList, sql: "= ANY"},
	{Field: "null", Label: "is null (true/false)", Value: OperandBool, sql: "IS NULL"},
}

var (
	fieldOperators = map[string]*Operator{}
	exprOperators  = map[string]*Operator{}
	// exprSymbols are the expression symbols, longest first, for the lexer.
	exprSymbols []string
	// fieldNames and exprNames list the two forms' operators for
	// messages; nullOperators the expression operators null takes.
	fieldNames, exprNames, nullOperators string
)

// searchOp is the SQL of search=, a contains over every textual column.
const searchOp = "ILIKE"

func init() {
	var fields, exprs, nulls []string
	for i := range operators {
		op := &operators[i]
		if op.isNull != nil {
			nulls = append(nulls, op.Expr)
		}
		if op.Field != "" {
			fieldOperators[op.Field] = op
			fields = append(fields, op.Field)
		}
		if op.Expr != "" {
			exprOperators[op.Expr] = op
			exprs = append(exprs, op.Expr)
		}
	}
	fieldNames, exprNames, nullOperators = strings.Join(fields, " "), strings.Join(exprs, " "), strings.Join(nulls, " or ")
	exprSymbols = append([]string(nil), exprs...)
	sort.SliceStable(exprSymbols, func(i, j int) bool { return len(exprSymbols[i]) > len(exprSymbols[j]) })
}

// Operators lists every operator, in the document's order.
func Operators() []Operator { return append([]Operator(nil), operators...) }

// ExprOperators describes the expression operators as a list, with their
// notes: "= != ~ (contains, case-insensitive)".
func ExprOperators() string {
	var parts []string
	for _, o := range operators {
		if o.Expr == "" {
			continue
		}
		if o.Note != "" {
			parts = append(parts, o.Expr+" ("+o.Note+")")
		} else {
			parts = append(parts, o.Expr)
		}
	}
	return strings.Join(parts, " ")
}

// Offered reports whether the document and the dashboard offer the
// operator on a column of type t: comparable columns only, range
// operators on ordered ones, textual operators on textual ones.
func (o Operator) Offered(t *schema.ColumnType) bool {
	traits := t.Traits
	return traits.Comparable && (!o.Range || traits.Ordered) && (!o.Textual || traits.Textual)
}

// OfferedFilters lists the filter[column][op] operators offered on a
// column of type t, in the document's order.
func OfferedFilters(t *schema.ColumnType) []Operator {
	var out []Operator
	for _, o := range operators {
		if o.Field != "" && o.Offered(t) {
			out = append(out, o)
		}
	}
	return out
}
