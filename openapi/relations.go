package openapi

import (
	"strconv"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// relationSchemas adds the levels of a table's records with embedded
// relations, so that no schema refers back to itself through others
// (Customer.orders → Order.customer → Customer was a loop that Portman
// refuses and swagger-parser needs circular handling for). include nests
// at most translate.MaxIncludeDepth levels, so the levels end there:
//
//	<T>WithRelations   a list item: its relations hold <U>Included1
//	<T>Included1       one level down: its relations hold <U>Included2
//	...
//	<U>ListItem        the deepest level, and any table without relations
//
// Each level is allOf the table's <T>ListItem (the columns, written once)
// plus one property per relation.
func relationSchemas(m *orderedmap.Map[string, *base.SchemaProxy], t *schema.CTable, names map[string]tableNames) {
	if len(t.RelationNames) == 0 {
		return
	}
	n := names[t.Name]
	for level := 0; level < translate.MaxIncludeDepth; level++ {
		props := orderedmap.New[string, *base.SchemaProxy]()
		for _, rel := range t.RelationNames {
			r := t.Relations[rel]
			target := base.CreateSchemaProxyRef(schemaRef(embeddedRecord(r.To, names[r.To.Name], level+1)))
			var s *base.Schema
			switch {
			case r.Through != nil:
				s = &base.Schema{Type: types("array"), Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: target},
					Description: "Present with include=" + rel + ": the " + r.To.Name + " records linked to this record through " + r.Through.Name + "."}
			case r.Many:
				s = &base.Schema{Type: types("array"), Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: target},
					Description: "Present with include=" + rel + ": the " + r.To.Name + " records whose " + r.ToCol.Name + " is this record's id."}
			default:
				s = &base.Schema{AnyOf: []*base.SchemaProxy{target, base.CreateSchemaProxy(&base.Schema{Type: types("null")})},
					Description: "Present with include=" + rel + ": the " + r.To.Name + " record that " + r.FromCol.Name + " references."}
			}
			props.Set(rel, base.CreateSchemaProxy(s))
		}
		desc := "A " + t.Name + " record in a list, with the relations include embeds."
		if level > 0 {
			desc = "A " + t.Name + " record embedded by include, " + levelWords(level) + " down, with the relations it can embed in turn."
		}
		m.Set(embeddedRecord(t, n, level), base.CreateSchemaProxy(&base.Schema{Type: types("object"), Description: desc,
			AllOf: []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(n.ListItem))}, Properties: props}))
	}
}

// embeddedRecord names the schema of a record of t at include level
// (0: the list item itself).
func embeddedRecord(t *schema.CTable, n tableNames, level int) string {
	switch {
	case len(t.RelationNames) == 0 || level >= translate.MaxIncludeDepth:
		return n.ListItem
	case level == 0:
		return n.WithRelations
	}
	return n.Included[level-1]
}

// listRecord names the schema of the items of t's list answer.
func listRecord(t *schema.CTable, n tableNames) string { return embeddedRecord(t, n, 0) }

func levelWords(level int) string {
	if level == 1 {
		return "one level"
	}
	return strconv.Itoa(level) + " levels"
}
