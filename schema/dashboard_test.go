package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var updateDashboard = flag.Bool("update-dashboard", false, "rewrite the dashboard's "+dashboardTypesPath)

// dashboardTypesPath is the dashboard's copy of the registry; the
// builder, the grid and the forms read their knowledge of types from it.
const dashboardTypesPath = "../dashboard/src/schema/columnTypes.gen.ts"

// dashboardType is what the dashboard knows of a column type.
type dashboardType struct {
	Name    string  `json:"name"`
	Label   string  `json:"label"`
	Offered bool    `json:"offered"`
	PG      string  `json:"pg"`
	Literal Literal `json:"literal"`
	Example any     `json:"example"`
	Traits  Traits  `json:"traits"`
}

// dashboardTypesFile renders the dashboard's file from the registry.
func dashboardTypesFile(t *testing.T) []byte {
	t.Helper()
	var types []dashboardType
	for _, ct := range ColumnTypes() {
		types = append(types, dashboardType{Name: ct.Name, Label: ct.Label, Offered: ct.Offered, PG: ct.PG,
			Literal: ct.Literal, Example: ct.Example, Traits: ct.Traits})
	}
	raw, err := json.MarshalIndent(types, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("// Generated from schema's column-type registry (schema/coltype.go and\n")
	b.WriteString("// schema/type_*.go) by `go generate ./schema`. Do not edit: change the\n")
	b.WriteString("// registry and generate again; schema/dashboard_test.go fails while this\n")
	b.WriteString("// file is stale.\n")
	b.WriteString("export const columnTypes = ")
	b.Write(raw)
	b.WriteString(" as const;\n\n")
	// The one e-mail rule (schema.EmailPattern), for the dashboard's checks.
	var rule bytes.Buffer
	enc := json.NewEncoder(&rule)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"pattern": EmailPattern, "maxLength": EmailMaxLength}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("// The e-mail rule of the API and its document: the pattern (ECMA-262, u flag) and\n")
	b.WriteString("// the most characters a value may have as sent.\n")
	b.WriteString("export const emailRule = ")
	b.Write(bytes.TrimSpace(rule.Bytes()))
	b.WriteString(" as const;\n")
	return b.Bytes()
}

func TestTheDashboardsCopyOfTheColumnTypeRegistryIsCurrent(t *testing.T) {
	want := dashboardTypesFile(t)
	if *updateDashboard {
		if err := os.WriteFile(dashboardTypesPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(dashboardTypesPath)
	if err != nil {
		t.Fatalf("%v: run go generate ./schema", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate ./schema and commit it", dashboardTypesPath)
	}
}
