package openapi

import (
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// filterParameters are the parameters of column c: filter[c] and one
// filter[c][op] per operator translate's table offers for c's type
// (translate.OfferedFilters), so a typed client (openapi-typescript) can
// send any of them without a cast. Each is a few dozen bytes with no
// description (the operation's says what the operators do), which keeps
// the widest document the schema limits allow servable (bench/RESULTS.md).
func filterParameters(c *schema.CColumn) []*yaml.Node {
	value := filterValue(c)
	param := func(name string, s *yaml.Node) *yaml.Node {
		return mapping("name", str(name), "in", str("query"), "schema", s)
	}
	out := []*yaml.Node{param("filter["+c.Name+"]", value)}
	for _, op := range translate.OfferedFilters(c.Kind) {
		name := "filter[" + c.Name + "][" + op.Field + "]"
		switch op.Value {
		case translate.OperandValue:
			out = append(out, param(name, value))
		case translate.OperandText:
			out = append(out, param(name, mapping("$ref", str(schemaRef(filterString)))))
		case translate.OperandList:
			// A comma list: as an array in form style without explode,
			// a client writes [1, 2] and sends 1,2.
			out = append(out, mapping("name", str(name), "in", str("query"), "style", str("form"), "explode", boolNode(false),
				"schema", mapping("type", str("array"), "items", value, "maxItems", intNode(translate.MaxInValues))))
		case translate.OperandBool:
			out = append(out, param(name, mapping("$ref", str(schemaRef(schema.QuerySchemaName(schema.TypeBoolean))))))
		}
	}
	return out
}

// filterValue is the schema of one filter value of column c, as its
// type's entry says: a shared one by name, or the column's own (an enum's
// example value is one of its values).
func filterValue(c *schema.CColumn) *yaml.Node {
	name, inline := c.Kind.QueryValue(&c.Column)
	if inline != nil {
		m := mapping("type", str(inline.Types[0]))
		if len(inline.Examples) > 0 {
			ex := &yaml.Node{Kind: yaml.SequenceNode}
			for _, e := range inline.Examples {
				ex.Content = append(ex.Content, str(e))
			}
			m.Content = append(m.Content, str("examples"), ex)
		}
		return m
	}
	return mapping("$ref", str(schemaRef(name)))
}
