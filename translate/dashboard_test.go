package translate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

var updateDashboard = flag.Bool("update-dashboard", false, "rewrite the dashboard's "+dashboardOperatorsPath)

// dashboardOperatorsPath is the dashboard's copy of the operator table;
// the Data page's filter chips and the Test console read it.
const dashboardOperatorsPath = "../dashboard/src/console/filterOperators.gen.ts"

// dashboardOperatorsFile renders the dashboard's file from the table: the
// operators, and the filter[column][op] operators offered per column type.
func dashboardOperatorsFile(t *testing.T) []byte {
	t.Helper()
	ops := indentedJSON(t, operators)
	byType := map[string][]string{}
	for _, ct := range schema.ColumnTypes() {
		names := []string{}
		for _, o := range OfferedFilters(ct) {
			names = append(names, o.Field)
		}
		byType[ct.Name] = names
	}
	offered := indentedJSON(t, byType)
	var b bytes.Buffer
	b.WriteString("// Generated from translate's operator table (translate/operators.go) by\n")
	b.WriteString("// `go generate ./translate`. Do not edit: change the table and generate\n")
	b.WriteString("// again; translate/dashboard_test.go fails while this file is stale.\n")
	b.WriteString("export const filterOperators = ")
	b.Write(ops)
	b.WriteString(" as const;\n\n// The filter[column][op] operators offered on a column of each type.\n")
	b.WriteString("export const operatorsByType: Readonly<Record<string, readonly string[]>> = ")
	b.Write(offered)
	b.WriteString(";\n")
	return b.Bytes()
}

// indentedJSON is v as indented JSON with <, > and & kept as they are.
func indentedJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestTheDashboardsCopyOfTheOperatorTableIsCurrent(t *testing.T) {
	want := dashboardOperatorsFile(t)
	if *updateDashboard {
		if err := os.WriteFile(dashboardOperatorsPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(dashboardOperatorsPath)
	if err != nil {
		t.Fatalf("%v: run go generate ./translate", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate ./translate and commit it", dashboardOperatorsPath)
	}
}
