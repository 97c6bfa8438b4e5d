package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// LogSource reads webhooks' changes from their projects' change logs, the
// ones realtime capture writes, with the rendering and conditions of the
// realtime stream (translate.BuildChanges): a record looks as a GET by the
// owner shows it.
type LogSource struct {
	Registry *registry.Registry
}

// PublishedTables checks a spec against a project's published version.
type PublishedTables struct{ Published *translate.Published }

// Has reports whether table is published.
func (p PublishedTables) Has(table string) bool {
	_, ok := p.Published.Compiled.Table(table)
	return ok
}

// Capturing reports whether table's changes go to the change log.
func (p PublishedTables) Capturing(table string) bool {
	t, ok := p.Published.Compiled.Table(table)
	return ok && t.Doc.Realtime
}

// Fronted reports whether table is a fronted database's, whose changes no
// generate can capture (Tablesmith adds no triggers there).
func (p PublishedTables) Fronted(table string) bool {
	t, ok := p.Published.Compiled.Table(table)
	return ok && t.Doc.External != nil
}

// Await sets w's AwaitingGenerate: its published tables without capture.
func (p PublishedTables) Await(w *Webhook) {
	w.AwaitingGenerate = []string{}
	for _, t := range w.Tables {
		if p.Has(t) && !p.Capturing(t) {
			w.AwaitingGenerate = append(w.AwaitingGenerate, t)
		}
	}
}

// CheckWhere checks a condition in the realtime filter grammar.
func (p PublishedTables) CheckWhere(table, expr string) error {
	t, ok := p.Published.Compiled.Table(table)
	if !ok {
		return fmt.Errorf("%q is not a published table", table)
	}
	_, err := buildRead(p.Published, t, expr)
	if err != nil {
		return err
	}
	return nil
}

// buildRead renders the read of a table's changes under a condition, as
// the owner sees its rows.
func buildRead(pub *translate.Published, t *schema.CTable, expr string) (*translate.ChangeSQL, error) {
	cq, err := translate.ParseChangeFilter("where", expr)
	if err != nil {
		return nil, plainError(err)
	}
	g, err := apihttp.Decide(access.Owner(), t, access.Read)
	if err != nil {
		return nil, err
	}
	cq.Caller, cq.Rows, cq.Old = access.Owner(), g.Rows, true
	read, err := translate.BuildChanges(pub, t, cq)
	if err != nil {
		return nil, plainError(err)
	}
	return read, nil
}

// plainError is a planner error's message alone.
func plainError(err error) error {
	var qe *translate.QueryError
	if errors.As(err, &qe) {
		return fmt.Errorf("%s", qe.Message)
	}
	return err
}

// Changes implements Source.
func (s *LogSource) Changes(ctx context.Context, w *Webhook, after int64, limit int) ([]Change, int64, error) {
	entry, err := s.Registry.Get(ctx, w.ProjectID)
	if err != nil {
		return nil, after, err
	}
	pub := entry.Published
	type feed struct {
		table string
		read  *translate.ChangeSQL
	}
	if !slices.ContainsFunc(pub.Compiled.Tables, func(t *schema.CTable) bool { return t.Doc.Realtime }) {
		return nil, after, nil // nothing writes a log (there may be none yet)
	}
	var feeds []feed
	for _, name := range w.Tables {
		// A table without capture has nothing in the log; it is read
		// anyway, so that a generate that has just switched it on loses
		// none of its first changes while this node's version lags.
		t, ok := pub.Compiled.Table(name)
		if !ok {
			continue // left from a drop before webhooks kept their tables
		}
		read, err := buildRead(pub, t, w.Where[name])
		if err != nil {
			return nil, after, fmt.Errorf("the condition on %s no longer applies: %w", name, err)
		}
		feeds = append(feeds, feed{table: name, read: read})
	}
	if len(feeds) == 0 {
		return nil, after, nil
	}
	db := entry.Tables.DB()
	if _, err := realtime.NumberChanges(ctx, db, pub.Schema, w.ProjectID); err != nil {
		return nil, after, err
	}
	head, err := realtime.LogHead(ctx, db, pub.Schema)
	if err != nil {
		return nil, after, err
	}
	to := min(head, after+int64(limit))
	if to <= after {
		return nil, after, nil
	}
	var out []Change
	for _, f := range feeds {
		args := append(slices.Clone(f.read.Args), f.table, after, to)
		rows, err := db.QueryContext(ctx, f.read.SQL, args...)
		if err != nil {
			return nil, after, fmt.Errorf("read changes of %s: %w", f.table, err)
		}
		for rows.Next() {
			var c Change
			var op string
			var rec, old []byte
			var at time.Time
			if err := rows.Scan(&c.ID, &op, &rec, &at, &old); err != nil {
				rows.Close()
				return nil, after, err
			}
			c.Table, c.Event, c.At = f.table, eventOf(op), at
			if rec == nil || !slices.Contains(w.Events, c.Event) {
				continue // out of its condition, or an event it does not take
			}
			c.Record = json.RawMessage(rec)
			if old != nil {
				c.Old = json.RawMessage(old)
			}
			out = append(out, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, after, err
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return cmp.Compare(a.ID, b.ID) })
	return out, to, nil
}
