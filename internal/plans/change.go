package plans

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/store"
)

// ChangePlan moves the account with this e-mail to another plan and
// announces it (events.PlanChanged), so that every running node's
// Resolver drops the owner it cached for the account's projects and the
// new limits apply to their next request (a rate window's count is kept).
func ChangePlan(ctx context.Context, db *sql.DB, email, plan string) (previous store.Account, err error) {
	st := &store.Store{DB: db}
	email = strings.ToLower(strings.TrimSpace(email))
	acc, err := st.AccountByEmail(ctx, email)
	if err != nil {
		return acc, fmt.Errorf("account %s: %w", email, err)
	}
	if err := st.SetPlan(ctx, email, plan); err != nil {
		return acc, fmt.Errorf("set plan of %s: %w", email, err)
	}
	if err := events.Notify(ctx, db, events.PlanChanged{AccountID: acc.ID}); err != nil {
		return acc, fmt.Errorf("announce the plan change (running nodes pick it up within 5 minutes anyway): %w", err)
	}
	return acc, nil
}
