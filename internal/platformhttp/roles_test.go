package platformhttp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/platformhttp"
)

// projectRoutes reads, from handler.go's routes(), every pattern whose
// handler goes through h.owned: the routes of a project, which admit its
// members by role.
func projectRoutes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "handler.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "routes" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "HandleFunc" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				return true
			}
			wrap, ok := call.Args[1].(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := wrap.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "owned" {
				pattern, _ := strconv.Unquote(lit.Value)
				out = append(out, pattern)
			}
			return true
		})
		return false
	})
	if len(out) < 10 {
		t.Fatalf("found only %d project routes in handler.go: %v", len(out), out)
	}
	return out
}

// TestEveryProjectRouteHasARole: a project route missing from the
// permission table is owner-only, which is safe but rarely meant; a new
// route must be given its least role in roles.go.
func TestEveryProjectRouteHasARole(t *testing.T) {
	routes := projectRoutes(t)
	for _, pattern := range routes {
		if _, ok := platformhttp.RoleDecision(pattern); !ok {
			t.Errorf("%s has no role decision: add it to permissions in internal/platformhttp/roles.go (the least role it admits: viewer, developer, admin or owner)", pattern)
		}
	}
	for _, pattern := range platformhttp.RoleTable() {
		if !slices.Contains(routes, pattern) {
			t.Errorf("roles.go decides %s, which handler.go does not register through owned", pattern)
		}
	}
}

// TestEveryProjectRouteDocumentsTheRefusalOfARoleTooLow: every route of a
// project admits members by role, so each may answer 403 to a member whose
// role is below the route's; a client generated from the document must
// know that answer.
func TestEveryProjectRouteDocumentsTheRefusalOfARoleTooLow(t *testing.T) {
	doc, _ := platformDocument(t)
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			if op.Responses != nil && op.Responses.Codes.GetOrZero("403") != nil {
				forbidden[strings.ToUpper(method)+" "+path] = true
			}
		}
	}
	for _, route := range projectRoutes(t) {
		if !forbidden[route] {
			t.Errorf("%s: platform.yaml lists no 403 answer", route)
		}
	}
}
