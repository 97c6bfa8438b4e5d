package publish

import (
	"context"
	"log/slog"
	"time"

	"github.com/tablesmith/tablesmith/internal/store"
)

// Builder runs the index builds that generates leave for after their
// commit, in the background: one project at a time, one index after
// another. Every node runs one; Kick (after a generate on this node)
// starts it at once, and every Poll it looks for builds that no builder
// holds (a node that died mid-build, a retry that is due).
type Builder struct {
	Store   *store.Store
	Options store.BuildOptions
	// Poll is how often unclaimed builds are looked for (default 10 s).
	Poll   time.Duration
	Logger *slog.Logger

	kick chan struct{}
}

// NewBuilder returns a builder; Run starts it.
func NewBuilder(st *store.Store, opt store.BuildOptions, logger *slog.Logger) *Builder {
	if logger == nil {
		logger = slog.Default()
	}
	return &Builder{Store: st, Options: opt, Poll: 10 * time.Second, Logger: logger, kick: make(chan struct{}, 1)}
}

// Kick makes the builder look for due builds now.
func (b *Builder) Kick() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Run builds until ctx ends; a build cut by the end stays "building" and
// is taken over by the next builder to start.
func (b *Builder) Run(ctx context.Context) {
	for {
		b.RunDue(ctx)
		wait := b.Poll
		if d, ok, err := b.Store.NextBuildDue(ctx); err == nil && ok && d < wait {
			wait = d
		}
		t := time.NewTimer(max(wait, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-b.kick:
		case <-t.C:
		}
		t.Stop()
	}
}

// RunDue builds the due builds of every project that no other builder
// holds.
func (b *Builder) RunDue(ctx context.Context) {
	ids, err := b.Store.ProjectsWithDueBuilds(ctx)
	if err != nil {
		if ctx.Err() == nil {
			b.Logger.Warn("index builds: listing due builds", "err", err)
		}
		return
	}
	for _, id := range ids {
		if _, err := b.Store.BuildIndexes(ctx, id, b.Options); err != nil && ctx.Err() == nil {
			b.Logger.Warn("index builds", "project", id, "err", err)
		}
	}
}

// BuildProject runs a project's builds here until none is pending or
// building, waiting out retry backoffs; it returns early (false) when
// another builder holds the project.
func BuildProject(ctx context.Context, st *store.Store, projectID string, opt store.BuildOptions) (bool, error) {
	for {
		claimed, err := st.BuildIndexes(ctx, projectID, opt)
		if err != nil || !claimed {
			return claimed, err
		}
		d, waiting, err := st.NextBuildDue(ctx)
		if err != nil {
			return true, err
		}
		all, err := st.IndexStatuses(ctx, projectID)
		if err != nil {
			return true, err
		}
		unfinished := false
		for _, s := range all {
			unfinished = unfinished || s.State == store.IndexBuilding
		}
		if !unfinished {
			return true, nil
		}
		if !waiting {
			d = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(d):
		}
	}
}
