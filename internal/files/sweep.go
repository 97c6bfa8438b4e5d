package files

import (
	"context"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/translate"
)

// Grace is how old an object no row names must be before a sweep removes
// it: an upload is stored before the write that names it commits, and
// that write may still be running (a request deadline is seconds; an hour
// leaves room for a slow client).
const Grace = time.Hour

// Sweep removes the objects of project that no row names and that are
// older than grace, and reports how many it removed. The listing comes
// before referenced is asked: an object a write names after the listing
// was uploaded just before it, younger than grace. referenced nil means
// the project is gone: every object of it goes, whatever its age.
func Sweep(ctx context.Context, store Store, project string, referenced func(context.Context) (map[string]bool, error), grace time.Duration, now time.Time) (int, error) {
	type object struct {
		key  string
		name string
		old  bool
	}
	var listed []object
	prefix := project + "/"
	err := store.List(ctx, prefix, func(i Info) error {
		listed = append(listed, object{key: i.Key, name: strings.TrimPrefix(i.Key, prefix), old: now.Sub(i.ModTime) >= grace})
		return nil
	})
	if err != nil || len(listed) == 0 {
		return 0, err
	}
	names := map[string]bool{}
	if referenced != nil {
		if names, err = referenced(ctx); err != nil {
			return 0, err
		}
	}
	var gone []string
	for _, o := range listed {
		if referenced == nil || o.old && !names[o.name] {
			gone = append(gone, o.key)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	return len(gone), store.Delete(ctx, gone...)
}

// ReferencedSQL is one statement that answers, as a JSON array, the
// name of every file the published tables' rows hold; "" when no table
// has a file column.
func ReferencedSQL(p *translate.Published) string {
	var parts []string
	for _, t := range p.Compiled.Tables {
		rel := p.Rel(t)
		for _, c := range t.Columns {
			switch {
			case !c.Kind.Traits.Upload:
			case c.Kind.Traits.Many:
				parts = append(parts, "SELECT _f.v ->> 'name' FROM "+rel+" t, jsonb_array_elements(t."+c.Ident+") AS _f(v) WHERE jsonb_typeof(t."+c.Ident+") = 'array'")
			default:
				parts = append(parts, "SELECT t."+c.Ident+" ->> 'name' FROM "+rel+" t WHERE t."+c.Ident+" IS NOT NULL")
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "SELECT COALESCE(jsonb_agg(_n.n), '[]'::jsonb) FROM (" + strings.Join(parts, " UNION ALL ") + ") AS _n(n)"
}
