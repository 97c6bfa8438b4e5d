package replica

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/pgexec"
)

// Router routes reads among the replica sets of several primaries (one
// per data server): each read and write goes to the set of the primary
// its project is on, and a project on a primary without replicas reads
// there.
type Router []*Set

// Read is Set.Read on primary's set.
func (r Router) Read(ctx context.Context, primary *pgexec.Statements, scope string, f func(context.Context, *pgexec.Statements) error) error {
	if s := r.of(primary); s != nil {
		return s.Read(ctx, primary, scope, f)
	}
	return f(ctx, primary)
}

// Wrote is Set.Wrote on primary's set.
func (r Router) Wrote(ctx context.Context, primary *pgexec.Statements, scope string) {
	if s := r.of(primary); s != nil {
		s.Wrote(ctx, primary, scope)
	}
}

func (r Router) of(primary *pgexec.Statements) *Set {
	for _, s := range r {
		if s.cfg.Primary == primary {
			return s
		}
	}
	return nil
}
