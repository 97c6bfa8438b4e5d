package platformhttp

import (
	"context"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/store"
)

// rank orders the roles: each may do everything the ones below it may.
var rank = map[string]int{store.RoleViewer: 1, store.RoleDeveloper: 2, store.RoleAdmin: 3, store.RoleOwner: 4}

// validRole reports whether role can be given to a member (owner is only
// ever given by a transfer).
func validRole(role string) bool {
	return role == store.RoleAdmin || role == store.RoleDeveloper || role == store.RoleViewer
}

// atLeast reports whether role includes need.
func atLeast(role, need string) bool { return rank[role] >= rank[need] }

// permissions is the least role each project route admits, keyed by the
// route's pattern as handler.go registers it (docs/teams.md, "Roles").
// A project route missing here is owner-only: a new route is safe until
// someone decides, and TestEveryProjectRouteHasARole names it.
var permissions = map[string]string{
	"GET /api/projects/{id}":    store.RoleViewer,
	"PATCH /api/projects/{id}":  store.RoleDeveloper, // a connection change needs admin (updateProject)
	"DELETE /api/projects/{id}": store.RoleOwner,

	"GET /api/projects/{id}/schema":                        store.RoleViewer,
	"PUT /api/projects/{id}/schema":                        store.RoleDeveloper,
	"POST /api/projects/{id}/schema/validate":              store.RoleViewer, // changes nothing
	"GET /api/projects/{id}/schema/plan":                   store.RoleViewer,
	"GET /api/projects/{id}/schema/versions":               store.RoleViewer,
	"GET /api/projects/{id}/schema/versions/{version}":     store.RoleViewer,
	"POST /api/projects/{id}/schema/reset":                 store.RoleDeveloper,
	"GET /api/projects/{id}/schema/export":                 store.RoleViewer,
	"POST /api/projects/{id}/generate":                     store.RoleDeveloper,
	"POST /api/projects/{id}/schema/refresh":               store.RoleDeveloper,
	"POST /api/projects/{id}/keys":                         store.RoleDeveloper,
	"GET /api/projects/{id}/keys":                          store.RoleViewer, // names and prefixes, never a secret
	"DELETE /api/projects/{id}/keys/{key_id}":              store.RoleDeveloper,
	"GET /api/projects/{id}/analytics":                     store.RoleViewer,
	"GET /api/projects/{id}/logs":                          store.RoleViewer,
	"POST /api/projects/{id}/stream-tickets":               store.RoleViewer,
	"POST /api/projects/{id}/webhooks":                     store.RoleDeveloper,
	"GET /api/projects/{id}/webhooks":                      store.RoleViewer,
	"GET /api/projects/{id}/webhooks/{wid}":                store.RoleViewer,
	"PATCH /api/projects/{id}/webhooks/{wid}":              store.RoleDeveloper,
	"DELETE /api/projects/{id}/webhooks/{wid}":             store.RoleDeveloper,
	"POST /api/projects/{id}/webhooks/{wid}/rotate-secret": store.RoleDeveloper,
	"POST /api/projects/{id}/webhooks/{wid}/replay":        store.RoleDeveloper,
	"GET /api/projects/{id}/webhooks/{wid}/deliveries":     store.RoleViewer,

	"GET /api/projects/{id}/members":                 store.RoleViewer,
	"POST /api/projects/{id}/members":                store.RoleAdmin,
	"PATCH /api/projects/{id}/members/{account_id}":  store.RoleAdmin,
	"DELETE /api/projects/{id}/members/{account_id}": store.RoleViewer, // anyone leaves; removing another needs admin (removeMember)
	"GET /api/projects/{id}/invitations":             store.RoleAdmin,
	"DELETE /api/projects/{id}/invitations/{iid}":    store.RoleAdmin,
	"POST /api/projects/{id}/transfer":               store.RoleOwner,
	"GET /api/projects/{id}/audit":                   store.RoleAdmin,

	// The outbox holds live links (end users' resets) for whoever tests
	// the project's mail; templates are no secret.
	"GET /api/projects/{id}/outbox":                   store.RoleDeveloper,
	"GET /api/projects/{id}/mail-templates":           store.RoleViewer,
	"PUT /api/projects/{id}/mail-templates/{kind}":    store.RoleDeveloper,
	"DELETE /api/projects/{id}/mail-templates/{kind}": store.RoleDeveloper,

	// Sign-in providers: the client secret is write-only, so listing is
	// safe; changing them changes how end users sign in.
	"GET /api/projects/{id}/auth/providers":           store.RoleViewer,
	"PUT /api/projects/{id}/auth/providers/{name}":    store.RoleDeveloper,
	"DELETE /api/projects/{id}/auth/providers/{name}": store.RoleDeveloper,
}

// requiredRole is the least role that the route of pattern admits.
func requiredRole(pattern string) string {
	if role, ok := permissions[pattern]; ok {
		return role
	}
	return store.RoleOwner
}

// forbidden is the answer to a member whose role is below need.
func forbidden(need, role string) error {
	return apierr.New(apierr.CodeForbidden, "This needs the %s role or higher in this project; you are %s %s", need, article(role), role)
}

func article(role string) string {
	if role == store.RoleAdmin || role == store.RoleOwner {
		return "an"
	}
	return "a"
}

type roleKey struct{}

// withRole keeps the caller's role in the project for the handler.
func withRole(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

// roleOf is the caller's role in the request's project ("" outside owned).
func roleOf(ctx context.Context) string {
	role, _ := ctx.Value(roleKey{}).(string)
	return role
}

// require refuses a caller whose role is below need, for a rule finer
// than the route's (a PATCH that changes the connection).
func require(ctx context.Context, need string) error {
	if role := roleOf(ctx); !atLeast(role, need) {
		return forbidden(need, role)
	}
	return nil
}
