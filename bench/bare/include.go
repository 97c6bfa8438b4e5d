package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/translate"
)

// includeList serves posts?include=author and users?include=posts the way
// a hand-written Go server does without one statement: rows scanned into
// structs, related rows fetched with one query per relation (mode
// per-relation: WHERE key = ANY($1) for the page) or one per row (mode
// n-plus-1), joined in Go and marshalled with encoding/json. The page is
// the default order (id), limit and page from the query, without a count,
// so it answers what the module answers for ?include=...&count=none.
func (s *server) includeList(ctx context.Context, w http.ResponseWriter, r *http.Request, p *project, t *translate.TableSQL, mode string) error {
	q := r.URL.Query()
	limit, page := 20, 1
	if v, err := strconv.Atoi(q.Get("limit")); err == nil {
		limit = v
	}
	if v, err := strconv.Atoi(q.Get("page")); err == nil {
		page = v
	}
	offset := (page - 1) * limit
	users, posts := p.pub.Tables["users"].Rel, p.pub.Tables["posts"].Rel
	var data any
	var err error
	switch {
	case t.Table.Name == "posts" && q.Get("include") == "author":
		data, err = s.postsWithAuthor(ctx, posts, users, limit, offset, mode)
	case t.Table.Name == "users" && q.Get("include") == "posts":
		data, err = s.usersWithPosts(ctx, users, posts, limit, offset, mode)
	default:
		http.Error(w, "bare includes: posts?include=author or users?include=posts", http.StatusNotImplemented)
		return nil
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
		Meta    any  `json:"meta"`
	}{true, data, map[string]int{"page": page, "limit": limit, "offset": offset}})
	if err != nil {
		return err
	}
	fixture.WriteJSON(w, http.StatusOK, append(body, '\n'))
	return nil
}

type userRow struct {
	ID        int64   `json:"id"`
	Email     string  `json:"email"`
	Name      *string `json:"name"`
	Age       *int64  `json:"age"`
	IsActive  *bool   `json:"is_active"`
	CreatedAt stamp   `json:"created_at"`
	UpdatedAt stamp   `json:"updated_at"`
}

const userColumns = "id, email, name, age, is_active, created_at, updated_at"

func (u *userRow) scan(rows *sql.Rows) error {
	return rows.Scan(&u.ID, &u.Email, &u.Name, &u.Age, &u.IsActive, (*time.Time)(&u.CreatedAt), (*time.Time)(&u.UpdatedAt))
}

type postRow struct {
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	Views     *int64 `json:"views"`
	Published *bool  `json:"published"`
	AuthorID  int64  `json:"author_id"`
	CreatedAt stamp  `json:"created_at"`
	UpdatedAt stamp  `json:"updated_at"`
}

const postColumns = "id, title, views, published, author_id, created_at, updated_at"

func (p *postRow) scan(rows *sql.Rows) error {
	return rows.Scan(&p.ID, &p.Title, &p.Views, &p.Published, &p.AuthorID, (*time.Time)(&p.CreatedAt), (*time.Time)(&p.UpdatedAt))
}

type postWithAuthor struct {
	postRow
	Author *userRow `json:"author"`
}

type userWithPosts struct {
	userRow
	Posts []postRow `json:"posts"`
}

// stamp marshals as the module does: RFC 3339 UTC with microseconds.
type stamp time.Time

func (t stamp) MarshalJSON() ([]byte, error) {
	return time.Time(t).UTC().AppendFormat(make([]byte, 0, 30), `"2006-01-02T15:04:05.000000Z"`), nil
}

// queryRows runs a query, prepared on the lib/pq pool, and scans every
// row with scan.
func (s *server) queryRows(ctx context.Context, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := s.pq.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *server) postsWithAuthor(ctx context.Context, posts, users string, limit, offset int, mode string) ([]postWithAuthor, error) {
	var page []postWithAuthor
	err := s.queryRows(ctx, func(rows *sql.Rows) error {
		var p postWithAuthor
		err := p.scan(rows)
		page = append(page, p)
		return err
	}, "SELECT "+postColumns+" FROM "+posts+" ORDER BY id LIMIT $1 OFFSET $2", limit, offset)
	if err != nil || len(page) == 0 {
		return page, err
	}
	byID := map[int64]*userRow{}
	scanUser := func(rows *sql.Rows) error {
		u := new(userRow)
		err := u.scan(rows)
		byID[u.ID] = u
		return err
	}
	if mode == "per-relation" {
		ids := make([]int64, len(page))
		for i, p := range page {
			ids[i] = p.AuthorID
		}
		err = s.queryRows(ctx, scanUser, "SELECT "+userColumns+" FROM "+users+" WHERE id = ANY($1)", pq.Array(ids))
	} else {
		for _, p := range page {
			if err = s.queryRows(ctx, scanUser, "SELECT "+userColumns+" FROM "+users+" WHERE id = $1", p.AuthorID); err != nil {
				break
			}
		}
	}
	for i := range page {
		page[i].Author = byID[page[i].AuthorID]
	}
	return page, err
}

func (s *server) usersWithPosts(ctx context.Context, users, posts string, limit, offset int, mode string) ([]userWithPosts, error) {
	var page []userWithPosts
	err := s.queryRows(ctx, func(rows *sql.Rows) error {
		u := userWithPosts{Posts: []postRow{}}
		err := u.scan(rows)
		page = append(page, u)
		return err
	}, "SELECT "+userColumns+" FROM "+users+" ORDER BY id LIMIT $1 OFFSET $2", limit, offset)
	if err != nil || len(page) == 0 {
		return page, err
	}
	at := make(map[int64]int, len(page))
	for i, u := range page {
		at[u.ID] = i
	}
	scanPost := func(rows *sql.Rows) error {
		var p postRow
		err := p.scan(rows)
		u := &page[at[p.AuthorID]]
		u.Posts = append(u.Posts, p)
		return err
	}
	if mode == "per-relation" {
		ids := make([]int64, len(page))
		for i, u := range page {
			ids[i] = u.ID
		}
		return page, s.queryRows(ctx, scanPost, "SELECT "+postColumns+" FROM "+posts+" WHERE author_id = ANY($1) ORDER BY author_id, id", pq.Array(ids))
	}
	for _, u := range page {
		if err := s.queryRows(ctx, scanPost, "SELECT "+postColumns+" FROM "+posts+" WHERE author_id = $1 ORDER BY id LIMIT 1000", u.ID); err != nil {
			return page, err
		}
	}
	return page, nil
}
