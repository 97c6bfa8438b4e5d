package requestlog

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Page sizes of Query.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// Filter is what a Logs query asks for; zero fields do not filter.
type Filter struct {
	// Status is an exact status (404), a class ("4xx") or "error" (>= 400).
	StatusMin, StatusMax int
	Method               string
	// PathPrefix matches the path after /v1/<project_id> ("/posts").
	PathPrefix string
	// Credential is a kind ("key", "user", "dashboard", "none") or an API
	// key's prefix.
	Credential string
	RequestID  string
	From, To   time.Time
	Limit      int
	// after is the cursor: entries older than (at, id).
	afterAt  time.Time
	afterID  int64
	hasAfter bool
}

// Row is one entry as the Logs API answers it.
type Row struct {
	ID         int64         `json:"id"`
	At         time.Time     `json:"at"`
	Method     string        `json:"method"`
	Path       string        `json:"path"`
	Query      string        `json:"query"`
	Status     int           `json:"status"`
	Error      *RowError     `json:"error"`
	LatencyMS  float64       `json:"latency_ms"`
	Credential RowCredential `json:"credential"`
	Origin     string        `json:"origin"`
	RequestID  string        `json:"request_id"`
	Rows       *int64        `json:"rows"`
	Bytes      int64         `json:"bytes"`
}

// RowError is an error answer's code, message and (capped) body.
type RowError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Body    string `json:"body"`
}

// RowCredential says who made the request: the kind, and an API key's
// prefix and name (while the key exists) or an end user's id.
type RowCredential struct {
	Kind      string `json:"kind"`
	KeyPrefix string `json:"key_prefix,omitempty"`
	KeyName   string `json:"key_name,omitempty"`
	EndUser   string `json:"end_user,omitempty"`
}

// queryParams are the parameters ParseFilter takes.
var queryParams = map[string]bool{"status": true, "method": true, "path": true, "credential": true,
	"request_id": true, "from": true, "to": true, "limit": true, "cursor": true}

// ParseFilter reads a Logs query string strictly: an unknown or repeated
// parameter, or a value it cannot read, is a problem named by parameter.
func ParseFilter(q url.Values) (Filter, map[string]string) {
	f := Filter{Limit: DefaultLimit}
	problems := map[string]string{}
	for name, vs := range q {
		if !queryParams[name] {
			problems[name] = "is not a parameter of this endpoint (status, method, path, credential, request_id, from, to, limit, cursor)"
		} else if len(vs) > 1 {
			problems[name] = "is given more than once"
		}
	}
	if v := q.Get("status"); v != "" {
		if !f.parseStatus(v) {
			problems["status"] = "must be a status (404), a class (4xx) or error"
		}
	}
	if v := q.Get("method"); v != "" {
		switch m := strings.ToUpper(v); m {
		case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
			f.Method = m
		default:
			problems["method"] = "must be an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS)"
		}
	}
	f.PathPrefix, f.Credential, f.RequestID = q.Get("path"), q.Get("credential"), q.Get("request_id")
	for name, at := range map[string]*time.Time{"from": &f.From, "to": &f.To} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				problems[name] = "must be an RFC 3339 time, e.g. 2026-11-28T09:00:00Z"
			}
			*at = t
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			problems["limit"] = fmt.Sprintf("must be a whole number from 1 to %d", MaxLimit)
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		if !f.parseCursor(v) {
			problems["cursor"] = "is not a cursor this endpoint gave (take next_cursor from the previous page)"
		}
	}
	if len(problems) > 0 {
		return f, problems
	}
	return f, nil
}

func (f *Filter) parseStatus(v string) bool {
	v = strings.ToLower(v)
	switch {
	case v == "error":
		f.StatusMin, f.StatusMax = 400, 599
		return true
	case len(v) == 3 && v[1:] == "xx" && v[0] >= '1' && v[0] <= '5':
		f.StatusMin = int(v[0]-'0') * 100
		f.StatusMax = f.StatusMin + 99
		return true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 || n > 599 {
		return false
	}
	f.StatusMin, f.StatusMax = n, n
	return true
}

// cursor is the last row of a page: its time in microseconds and id.
func cursor(at time.Time, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "." + strconv.FormatInt(id, 10)))
}

func (f *Filter) parseCursor(v string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	us, id, ok := strings.Cut(string(raw), ".")
	if !ok {
		return false
	}
	micros, err1 := strconv.ParseInt(us, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	f.afterAt, f.afterID, f.hasAfter = time.UnixMicro(micros), n, true
	return true
}

// selectRows reads a page newest first along request_log_newest_idx; each
// filter is a bound parameter that is null when unset. An API key's name
// is joined at read time, so the write path needs no lookup.
const selectRows = `
SELECT l.id, l.at, l.method, l.path, l.query, l.status, l.error_code, l.error_message, l.error_body,
       l.latency_us, l.credential, l.key_prefix, coalesce(k.name, ''), l.end_user, l.origin, l.request_id,
       l.rows_affected, l.bytes
FROM tablesmith.request_log l
LEFT JOIN tablesmith.api_keys k ON l.key_prefix <> '' AND k.prefix = l.key_prefix AND k.project_id = l.project_id
WHERE l.project_id = $1
  AND ($2::int IS NULL OR l.status BETWEEN $2 AND $3)
  AND ($4::text IS NULL OR l.method = $4)
  AND ($5::text IS NULL OR starts_with(l.path, $5))
  AND ($6::text IS NULL OR l.credential = $6 OR l.key_prefix = $6)
  AND ($7::text IS NULL OR l.request_id = $7)
  AND ($8::timestamptz IS NULL OR l.at >= $8)
  AND ($9::timestamptz IS NULL OR l.at < $9)
  AND ($10::timestamptz IS NULL OR (l.at, l.id) < ($10, $11))
ORDER BY l.at DESC, l.id DESC
LIMIT $12`

// Query reads one page of a project's entries, newest first, and the
// cursor of the next page ("" after the last).
func Query(ctx context.Context, db *sql.DB, projectID string, f Filter) ([]Row, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rows, err := db.QueryContext(ctx, selectRows, projectID,
		nullInt(f.StatusMin, f.StatusMin > 0), f.StatusMax, nullString(f.Method), nullString(f.PathPrefix),
		nullString(f.Credential), nullString(f.RequestID), nullTime(f.From), nullTime(f.To),
		nullTime(f.afterAt), f.afterID, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("read the request log of %s: %w", projectID, err)
	}
	defer rows.Close()
	out := []Row{}
	for rows.Next() {
		var r Row
		var code, message, body string
		var latencyUS int64
		var n sql.NullInt64
		if err := rows.Scan(&r.ID, &r.At, &r.Method, &r.Path, &r.Query, &r.Status, &code, &message, &body,
			&latencyUS, &r.Credential.Kind, &r.Credential.KeyPrefix, &r.Credential.KeyName, &r.Credential.EndUser,
			&r.Origin, &r.RequestID, &n, &r.Bytes); err != nil {
			return nil, "", err
		}
		r.At = r.At.UTC()
		r.LatencyMS = float64(latencyUS) / 1000
		if r.Status >= 400 {
			r.Error = &RowError{Code: code, Message: message, Body: body}
		}
		if n.Valid {
			r.Rows = &n.Int64
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = cursor(last.At, last.ID)
	}
	return out, next, nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullInt(n int, valid bool) sql.NullInt64 { return sql.NullInt64{Int64: int64(n), Valid: valid} }

func nullTime(t time.Time) sql.NullTime { return sql.NullTime{Time: t, Valid: !t.IsZero()} }
