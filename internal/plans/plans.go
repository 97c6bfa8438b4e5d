// Package plans defines account plans: how many generated-API requests a
// project may make per hour and how many projects an account may own.
package plans

// Unlimited marks a limit that does not apply.
const Unlimited = -1

// Plan is one plan's limits.
type Plan struct {
	Name        string `json:"name"`
	RatePerHour int64  `json:"rate_per_hour"`
	Projects    int    `json:"projects"`
}

// Set is the plans by name.
type Set map[string]Plan

// Defaults are CONTRACT section 1's plans; a Caddyfile may redefine them.
func Defaults() Set {
	return Set{
		"free":      {Name: "free", RatePerHour: 100, Projects: 1},
		"pro":       {Name: "pro", RatePerHour: 100_000, Projects: 20},
		"unlimited": {Name: "unlimited", RatePerHour: Unlimited, Projects: Unlimited},
	}
}

// Get returns a plan by name, falling back to fallback's limits when an
// account names a plan that no longer exists (an operator removed it).
func (s Set) Get(name, fallback string) Plan {
	if p, ok := s[name]; ok {
		return p
	}
	if p, ok := s[fallback]; ok {
		return p
	}
	return Plan{Name: name, RatePerHour: 100, Projects: 1}
}
