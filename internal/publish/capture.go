package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// Captured is a draft as a generate publishes it: with realtime on for
// every table a webhook names (a webhook reads the change log, which only
// realtime tables write), and why, per table it switched on.
type Captured struct {
	Document schema.Document
	Why      map[string]string
}

// Explain says in plan why it turns realtime on for those tables.
func (c Captured) Explain(plan *schema.Plan) {
	for table, why := range c.Why {
		plan.ExplainRealtime(table, why)
	}
}

// KeepCapture reads the project's webhooks and switches realtime on in
// draft for each table they name. A draft that would stop capturing such
// a table (realtime turned off, or the table dropped or renamed) is a
// validation error naming the table and the webhooks: it would end their
// deliveries without a word.
func KeepCapture(ctx context.Context, st *store.Store, projectID string, pub, draft schema.Document) (Captured, error) {
	hooks, err := st.WebhookTables(ctx, projectID)
	if err != nil {
		return Captured{}, fmt.Errorf("webhooks of %s: %w", projectID, err)
	}
	c, problems := keepCapture(pub, draft, hooks)
	if len(problems) > 0 {
		return c, apierr.Fields(apierr.CodeValidation, "Webhooks deliver the changes of tables this draft stops capturing; nothing was changed", problems)
	}
	return c, nil
}

// keepCapture is KeepCapture given the webhooks' tables (table → webhook
// ids); the problems are keyed like schema.Validate's, or by the table's
// name when the draft no longer has it.
func keepCapture(pub, draft schema.Document, hooks map[string][]string) (Captured, schema.Problems) {
	draft.Tables = slices.Clone(draft.Tables)
	why := map[string]string{}
	problems := schema.Problems{}
	for _, table := range slices.Sorted(maps.Keys(hooks)) {
		who := webhooksNamed(hooks[table])
		pt, published := pub.Table(table)
		i := slices.IndexFunc(draft.Tables, func(t schema.Table) bool { return t.Name == table })
		switch {
		case i < 0 && published:
			problems[table] = fmt.Sprintf("%s the changes of %s: remove the table from it (or delete it) before dropping or renaming the table", who, table)
		case i < 0 || draft.Tables[i].Realtime || draft.Tables[i].External != nil:
			// Left from a drop before webhooks kept tables; captured
			// already; or fronted, which no generate can capture.
		case published && pt.Realtime:
			problems[fmt.Sprintf("tables[%d].realtime", i)] = fmt.Sprintf("%s the changes of %s: remove the table from it (or delete it) before turning realtime off", who, table)
		default:
			draft.Tables[i].Realtime = true
			why[table] = who + " its changes"
		}
	}
	return Captured{Document: draft, Why: why}, problems
}

// webhooksNamed is "webhook wh_1 delivers" or "webhooks wh_1, wh_2 deliver".
func webhooksNamed(ids []string) string {
	if len(ids) == 1 {
		return "webhook " + ids[0] + " delivers"
	}
	return "webhooks " + strings.Join(ids, ", ") + " deliver"
}

// AmendDraft gives the project's draft (raw, as a generate read it) the
// capture the generate switched on, so that the builder shows what was
// published and the next generate does not take the switch's absence for
// turning realtime off. When the draft changed meanwhile it stays, and the
// returned note says what to turn on.
func AmendDraft(ctx context.Context, st *store.Store, projectID string, raw json.RawMessage, c Captured) []string {
	if len(c.Why) == 0 {
		return nil
	}
	doc, _ := json.Marshal(c.Document)
	if ok, err := st.AmendDraft(ctx, projectID, raw, doc); err == nil && ok {
		return nil
	}
	return []string{fmt.Sprintf("realtime is on for %s (webhooks need it), but the draft changed during the generate and still has it off: turn it on there, or the next generate is refused",
		strings.Join(slices.Sorted(maps.Keys(c.Why)), ", "))}
}
