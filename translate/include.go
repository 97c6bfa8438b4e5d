package translate

import (
	"strconv"
	"strings"
)

// IncludeStep is one relation of an include path and the options written
// after it in parentheses: tags(fields=name,sort=-name,limit=5).
type IncludeStep struct {
	Name string
	// Fields is nil for every visible column.
	Fields []string
	// Sort is empty for the default order, the related table's key.
	Sort []SortKey
	// Limit is 0 for MaxEmbeddedRows.
	Limit int
	// Options is the parenthesised text as written, "" for none: a
	// relation named twice with different options is an error.
	Options string
}

// includeOptions are the options a step may take; fields and sort take a
// list, and a piece without "=" continues the option before it. Pieces are
// separated by commas or semicolons: clients that split include at commas
// (OpenAPI arrays) write tags(sort=name;limit=5).
var includeOptions = map[string]bool{"fields": true, "sort": true, "limit": true}

// parseInclude reads "a,b.c(limit=5)" into paths of steps. Commas and
// dots inside parentheses belong to the options.
func parseInclude(v string) ([][]IncludeStep, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	items, err := splitOutside(v, ',')
	if err != nil {
		return nil, err
	}
	var paths [][]IncludeStep
	for _, item := range items {
		item = strings.TrimSpace(item)
		parts, _ := splitOutside(item, '.')
		if len(parts) > MaxIncludeDepth {
			return nil, queryErr("include", "%q nests deeper than %d levels", item, MaxIncludeDepth)
		}
		path := make([]IncludeStep, len(parts))
		for i, part := range parts {
			if path[i], err = parseIncludeStep(item, part); err != nil {
				return nil, err
			}
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// splitOutside splits s at sep where no parenthesis is open; parentheses
// do not nest.
func splitOutside(s string, sep byte) ([]string, error) {
	var out []string
	open, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			if open {
				return nil, queryErr("include", "%q opens a parenthesis inside options", s)
			}
			open = true
		case ')':
			if !open {
				return nil, queryErr("include", "%q closes a parenthesis it did not open", s)
			}
			open = false
		case sep:
			if !open {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if open {
		return nil, queryErr("include", "%q leaves a parenthesis open", s)
	}
	return append(out, s[start:]), nil
}

// parseIncludeStep reads name or name(options).
func parseIncludeStep(item, part string) (IncludeStep, error) {
	part = strings.TrimSpace(part)
	name, opts, hasOpts := strings.Cut(part, "(")
	step := IncludeStep{Name: strings.TrimSpace(name)}
	if step.Name == "" {
		return step, queryErr("include", "%q has an empty relation name", item)
	}
	if !hasOpts {
		return step, nil
	}
	body, ok := strings.CutSuffix(opts, ")")
	if !ok {
		return step, queryErr("include", "%q has text after the options of %s", item, step.Name)
	}
	step.Options = strings.TrimSpace(body)
	if step.Options == "" {
		return step, queryErr("include", "%q has empty options for %s", item, step.Name)
	}
	values := map[string][]string{}
	var current string
	for _, piece := range strings.FieldsFunc(step.Options, func(r rune) bool { return r == ',' || r == ';' }) {
		piece = strings.TrimSpace(piece)
		key, val, isOption := strings.Cut(piece, "=")
		if isOption {
			current = strings.TrimSpace(key)
			if !includeOptions[current] {
				return step, queryErr("include", "unknown option %q for %s; use fields, sort or limit", current, step.Name)
			}
			if _, dup := values[current]; dup {
				return step, queryErr("include", "option %s is given twice for %s", current, step.Name)
			}
			piece = val
		} else if current == "" || current == "limit" {
			return step, queryErr("include", "%q in the options of %s is not option=value", piece, step.Name)
		}
		values[current] = append(values[current], strings.TrimSpace(piece))
	}
	return step, step.applyOptions(values)
}

func (s *IncludeStep) applyOptions(values map[string][]string) error {
	for _, f := range values["fields"] {
		if f == "" {
			return queryErr("include", "fields of %s has an empty column name", s.Name)
		}
		s.Fields = append(s.Fields, f)
	}
	if v, ok := values["sort"]; ok {
		keys, err := parseSort(strings.Join(v, ","), false)
		if err != nil {
			return queryErr("include", "sort of %s %s", s.Name, err.(*QueryError).Message)
		}
		s.Sort = keys
	}
	if v, ok := values["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > MaxEmbeddedRows {
			return queryErr("include", "limit of %s must be an integer from 1 to %d", s.Name, MaxEmbeddedRows)
		}
		s.Limit = n
	}
	return nil
}
