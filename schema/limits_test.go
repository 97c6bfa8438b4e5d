package schema

import (
	"fmt"
	"strings"
	"testing"
)

func wideDocument(tables, columns int, description string) Document {
	d := Document{}
	for i := 0; i < tables; i++ {
		t := Table{Name: fmt.Sprintf("t%03d", i)}
		for j := 0; j < columns; j++ {
			t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("c%03d", j), Type: TypeText, Description: description})
		}
		d.Tables = append(d.Tables, t)
	}
	return d
}

func TestCheckLimitsNamesTheTablesColumnsOrDocumentOverTheLimit(t *testing.T) {
	if p := CheckLimits(wideDocument(MaxTables, MaxColumns, "")); len(p) > 0 {
		t.Fatalf("the largest allowed shape is refused: %v", p)
	}
	if p := CheckLimits(wideDocument(MaxTables+1, 1, "")); !strings.Contains(p["tables"], "at most 100 tables") {
		t.Errorf("101 tables: %v", p)
	}
	d := wideDocument(3, 1, "")
	d.Tables[2] = wideDocument(1, MaxColumns+1, "").Tables[0]
	if p := CheckLimits(d); len(p) != 1 || !strings.Contains(p["tables[2].columns"], "at most 100 columns") {
		t.Errorf("101 columns in the third table: %v", p)
	}
	big := wideDocument(20, 20, strings.Repeat("x", MaxDocumentBytes/400))
	if p := CheckLimits(big); !strings.Contains(p["document"], "at most 1048576") {
		t.Errorf("a document over 1 MiB: %v", p)
	}
	// Validate, which generate runs, applies the same limits.
	if p := Validate(big); p["document"] == "" {
		t.Errorf("Validate let a document over 1 MiB through: %v", p)
	}
}
