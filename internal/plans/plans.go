// Package plans is where account plans live: what a plan allows (how
// many generated-API requests a project may make per hour, how many
// projects an account may own, how long one of a project's data
// statements may run, how many realtime streams it may hold), which plan
// a project is on (Resolver), and moving an account to another plan
// (ChangePlan).
package plans

import "time"

// Unlimited marks a limit that does not apply.
const Unlimited = -1

// Plan is one plan's limits.
type Plan struct {
	Name        string `json:"name"`
	RatePerHour int64  `json:"rate_per_hour"`
	Projects    int    `json:"projects"`
	// StatementTimeout bounds each generated-API data statement of the
	// plan's projects (the request context's deadline, so lib/pq cancels
	// the query in PostgreSQL). Not part of the account's JSON.
	StatementTimeout time.Duration `json:"-"`
	// RealtimeStreams caps a project's concurrent realtime streams (per
	// node, docs/realtime.md): Unlimited for no cap, 0 for no streams.
	RealtimeStreams int `json:"-"`
	// LogRetention is how long the request log keeps the plan's
	// projects' requests (docs/limits-and-analytics.md, "Request log").
	LogRetention time.Duration `json:"-"`
	// Webhooks caps a project's webhooks, and WebhookDeliveries their
	// delivery attempts an hour, counted apart from API requests
	// (docs/webhooks.md): Unlimited for no cap.
	Webhooks          int `json:"-"`
	WebhookDeliveries int `json:"-"`
	// FileStorage bounds the bytes of a project's stored files, and
	// MaxFileSize one file (docs/files.md): Unlimited for no bound.
	FileStorage int64 `json:"-"`
	MaxFileSize int64 `json:"-"`
}

// The file limits of a plan that does not set them: the free plan's.
const (
	DefaultFileStorage = 100 << 20
	DefaultMaxFileSize = 10 << 20
)

// The webhook limits of a plan that does not set them: the free plan's.
const (
	DefaultWebhooks          = 2
	DefaultWebhookDeliveries = 1000
)

// DefaultLogRetention is the request-log retention of a plan that does
// not set one: the free plan's.
const DefaultLogRetention = 24 * time.Hour

// DefaultRealtimeStreams is the stream cap of a plan that does not set
// one (a plan a Caddyfile defines without realtime_streams): the free
// plan's.
const DefaultRealtimeStreams = 5

// DefaultStatementTimeout is the statement timeout of a plan that does
// not set one (a plan a Caddyfile defines without statement_timeout).
const DefaultStatementTimeout = 30 * time.Second

// Set is the plans by name.
type Set map[string]Plan

// Defaults are CONTRACT section 1's plans; a Caddyfile may redefine them.
func Defaults() Set {
	return Set{
		"free": {Name: "free", RatePerHour: 100, Projects: 1, StatementTimeout: 5 * time.Second, RealtimeStreams: 5,
			LogRetention: DefaultLogRetention, Webhooks: DefaultWebhooks, WebhookDeliveries: DefaultWebhookDeliveries,
			FileStorage: DefaultFileStorage, MaxFileSize: DefaultMaxFileSize},
		"pro": {Name: "pro", RatePerHour: 100_000, Projects: 20, StatementTimeout: 15 * time.Second, RealtimeStreams: 1000,
			LogRetention: 7 * 24 * time.Hour, Webhooks: 20, WebhookDeliveries: 100_000, FileStorage: 10 << 30, MaxFileSize: 1 << 30},
		"unlimited": {Name: "unlimited", RatePerHour: Unlimited, Projects: Unlimited, StatementTimeout: 30 * time.Second,
			RealtimeStreams: Unlimited, LogRetention: 30 * 24 * time.Hour, Webhooks: Unlimited, WebhookDeliveries: Unlimited,
			FileStorage: Unlimited, MaxFileSize: Unlimited},
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
	return Plan{Name: name, RatePerHour: 100, Projects: 1, StatementTimeout: 5 * time.Second, RealtimeStreams: DefaultRealtimeStreams,
		LogRetention: DefaultLogRetention, Webhooks: DefaultWebhooks, WebhookDeliveries: DefaultWebhookDeliveries,
		FileStorage: DefaultFileStorage, MaxFileSize: DefaultMaxFileSize}
}
