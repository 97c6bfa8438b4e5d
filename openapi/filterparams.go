package openapi

import (
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// Operators of filter[column][op] whose value is one value of the
// column's type: equality for every type, order where order means
// something to a client (the server also orders booleans, UUIDs and enum
// labels, but the document leaves those out rather than grow by four
// parameters per such column).
var (
	equalityOps = []string{"eq", "ne"}
	orderOps    = []string{"gt", "gte", "lt", "lte"}
)

// filterParameters are the parameters of column c: filter[c] and one
// filter[c][op] per operator the server takes for c's type, so a typed
// client (openapi-typescript) can send any of them without a cast. Each
// is a few dozen bytes with no description (the operation's says what
// the operators do), which keeps the widest document the schema limits
// allow servable (bench/RESULTS.md).
func filterParameters(c *schema.CColumn) []*yaml.Node {
	value := filterValue(c)
	param := func(name string, s *yaml.Node) *yaml.Node {
		return mapping("name", str(name), "in", str("query"), "schema", s)
	}
	out := []*yaml.Node{param("filter["+c.Name+"]", value)}
	ops := equalityOps
	if filterOrdered(c) {
		ops = append(append([]string{}, equalityOps...), orderOps...)
	}
	for _, op := range ops {
		out = append(out, param("filter["+c.Name+"]["+op+"]", value))
	}
	if filterTextual(c) {
		out = append(out, param("filter["+c.Name+"][like]", mapping("$ref", str(schemaRef(filterString)))))
	}
	// in takes a comma list: as an array in form style without explode,
	// a client writes [1, 2] and sends 1,2.
	in := mapping("name", str("filter["+c.Name+"][in]"), "in", str("query"), "style", str("form"), "explode", boolNode(false),
		"schema", mapping("type", str("array"), "items", value, "maxItems", intNode(translate.MaxInValues)))
	out = append(out, in, param("filter["+c.Name+"][null]", mapping("$ref", str(schemaRef("FilterBoolean")))))
	return out
}

// filterValue is the schema of one filter value of column c: the shared
// one of its type; an enum's example value is the column's own.
func filterValue(c *schema.CColumn) *yaml.Node {
	if c.Type == schema.TypeEnum {
		return mapping("type", str("string"), "examples", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{str(c.Values[0])}})
	}
	name, ok := filterSchemaNames[c.Type]
	if !ok {
		name = filterString
	}
	return mapping("$ref", str(schemaRef(name)))
}

// filterTextual reports whether like applies to c, as translate decides.
func filterTextual(c *schema.CColumn) bool {
	switch c.Type {
	case schema.TypeText, schema.TypeEmail, schema.TypeURL, schema.TypeEnum:
		return true
	}
	return false
}

// filterOrdered reports whether the document offers gt, gte, lt and lte
// on c.
func filterOrdered(c *schema.CColumn) bool {
	switch c.Type {
	case schema.TypeBoolean, schema.TypeUUID, schema.TypeEnum:
		return false
	}
	return true
}
