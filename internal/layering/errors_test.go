package layering_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// depsOfForErrors lists every package that pkg depends on, as go list
// -deps reports them (the standard library included).
func depsOfForErrors(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %s", pkg, msg)
	}
	return strings.Fields(string(out))
}

// The packages below the handlers say what went wrong with the error
// codes of apierr; only the handlers and internal/envelope know
// HTTP (issue 17.3).
func TestErrorCodesAndTheLayersBelowTheHandlersDoNotDependOnNetHTTP(t *testing.T) {
	const mod = "github.com/tablesmith/tablesmith/"
	for _, pkg := range []string{"apierr", "internal/events", "internal/pgexec", "internal/publish", "internal/extdb", "internal/analytics"} {
		deps := depsOfForErrors(t, mod+pkg)
		if slices.Contains(deps, "net/http") {
			t.Errorf("%s depends on net/http", pkg)
		}
		if slices.Contains(deps, mod+"internal/envelope") {
			t.Errorf("%s depends on internal/envelope, the HTTP writer", pkg)
		}
	}
}

// apierr is a leaf: every package may import it, so it imports none of
// ours.
func TestTheErrorCodePackageImportsNoneOfOurs(t *testing.T) {
	for _, d := range depsOfForErrors(t, "github.com/tablesmith/tablesmith/apierr") {
		if strings.HasPrefix(d, "github.com/tablesmith/tablesmith/") && d != "github.com/tablesmith/tablesmith/apierr" {
			t.Errorf("apierr depends on %s", d)
		}
	}
}
