// Package edgecache names the generated API's answers for shared caches
// (surrogate keys per project and table) and holds this process's edge
// cache purger, the one thing a write's announcement must reach on every
// node (docs/edge-cache.md).
package edgecache

import (
	"strings"
	"sync/atomic"
)

// ProjectKey is the surrogate key every cached answer of a project
// carries: a publish purges it. Project ids are 12 of [a-z0-9] and table
// names start with a letter, so no two projects' keys can collide.
func ProjectKey(projectID string) string { return "ts_" + projectID }

// TableKey is the surrogate key of the answers that read a table.
func TableKey(projectID, table string) string { return "ts_" + projectID + "_" + table }

// Separator joins surrogate keys in one header value, as Caddy's
// cache-handler (Souin) reads them.
const Separator = ", "

// Header is the Surrogate-Key value of an answer of project that reads
// tables: the project's key, then one per table.
func Header(projectID string, tables []string) string {
	var b strings.Builder
	b.WriteString(ProjectKey(projectID))
	for _, t := range tables {
		b.WriteString(Separator)
		b.WriteString(TableKey(projectID, t))
	}
	return b.String()
}

// Keys are the surrogate keys to purge when tables of a project changed;
// no tables means the whole project.
func Keys(projectID string, tables []string) []string {
	if len(tables) == 0 {
		return []string{ProjectKey(projectID)}
	}
	keys := make([]string, len(tables))
	for i, t := range tables {
		keys[i] = TableKey(projectID, t)
	}
	return keys
}

// Purger drops answers from a cache in this process. It may work in
// the background (within milliseconds) and reports its own failures.
// Implementations are pointers: the Slot compares them.
type Purger interface {
	// Purge drops the project's answers that read one of tables (Keys),
	// or every answer of the project when tables is empty.
	Purge(projectID string, tables []string)
	// PurgeAll drops every answer (after missed announcements).
	PurgeAll()
}

// Slot holds the purger of the running config, if any. A config reload
// starts the new config before it stops the old one, so Clear only
// empties the slot if it still holds the purger it is given.
type Slot struct {
	p atomic.Pointer[Purger]
}

// Set makes p the purger.
func (s *Slot) Set(p Purger) { s.p.Store(&p) }

// Clear empties the slot if it holds p.
func (s *Slot) Clear(p Purger) {
	if cur := s.p.Load(); cur != nil && *cur == p {
		s.p.CompareAndSwap(cur, nil)
	}
}

// Get returns the purger, or nil when no cache runs in this process.
func (s *Slot) Get() Purger {
	if p := s.p.Load(); p != nil {
		return *p
	}
	return nil
}
