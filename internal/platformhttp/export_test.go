package platformhttp

// RoleDecision is the least role the route of pattern admits, and whether
// the permission table decides it (roles.go); for the tests.
func RoleDecision(pattern string) (string, bool) {
	role, ok := permissions[pattern]
	return role, ok
}

// RoleTable lists the permission table's patterns.
func RoleTable() []string {
	out := make([]string, 0, len(permissions))
	for p := range permissions {
		out = append(out, p)
	}
	return out
}
