package platformhttp

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/store"
)

// ownerAccount is the account that owns p. A project's limits are its
// owner's plan's, whichever member asks (docs/teams.md).
func (h *Handler) ownerAccount(ctx context.Context, acc store.Account, p store.Project) (store.Account, error) {
	if p.AccountID == acc.ID {
		return acc, nil
	}
	return h.d.Store.AccountByID(ctx, p.AccountID)
}

// projectPlan is the plan of p's owner, and its name.
func (h *Handler) projectPlan(ctx context.Context, acc store.Account, p store.Project) (plans.Plan, string, error) {
	owner, err := h.ownerAccount(ctx, acc, p)
	if err != nil {
		return plans.Plan{}, "", err
	}
	cfg := h.d.Config()
	return cfg.Plans.Get(owner.Plan, cfg.DefaultPlan), owner.Plan, nil
}
