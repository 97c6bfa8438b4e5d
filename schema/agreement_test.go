package schema

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// agreementCase is one document of testdata/agreement.json with the
// problem paths Validate finds in it. The dashboard's builder runs the same
// file through its own validation (dashboard/src/builder/agreement.test.ts),
// so the two validators cannot drift apart unnoticed.
type agreementCase struct {
	Name     string          `json:"name"`
	Document json.RawMessage `json:"document"`
	Problems []string        `json:"problems"`
}

func TestValidateAgreesWithTheSharedAgreementCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/agreement.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []agreementCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 30 {
		t.Fatalf("only %d cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			// The platform API decodes the body the same way (no unknown keys).
			d, err := Parse(c.Document)
			if err != nil {
				t.Fatalf("the document does not parse: %v", err)
			}
			got := []string{}
			problems := Validate(d)
			for path := range problems {
				got = append(got, path)
			}
			sort.Strings(got)
			want := append([]string{}, c.Problems...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("problems at %q, the file says %q (%v)", got, want, problems)
			}
		})
	}
}
