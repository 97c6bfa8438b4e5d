package pgexec_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "pgexec") }

// onePool opens a pool of one connection, so the test can look at that
// connection's prepared statements.
func onePool(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// preparedOnConnection lists the statement texts the pool's connection
// holds prepared.
func preparedOnConnection(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT statement FROM pg_prepared_statements`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func numberQuery(i int) string {
	return fmt.Sprintf(`SELECT json_build_object('q', %d, 'n', $1::int)::text`, i)
}

func runNumber(t *testing.T, s *pgexec.Statements, i, n int) {
	t.Helper()
	out, err := pgexec.JSON(context.Background(), s, numberQuery(i), n)
	if err != nil {
		t.Fatalf("query %d: %v", i, err)
	}
	if want := fmt.Sprintf(`{"q" : %d, "n" : %d}`, i, n); string(out) != want {
		t.Fatalf("query %d gave %s, want %s", i, out, want)
	}
}

func TestStatementsPrepareEachTextOnce(t *testing.T) {
	db := onePool(t)
	s := pgexec.NewStatements(db, 10, nil)
	for n := 0; n < 5; n++ {
		runNumber(t, s, 1, n)
		runNumber(t, s, 2, n)
	}
	got := preparedOnConnection(t, db)
	if len(got) != 2 || got[0] != numberQuery(1) || got[1] != numberQuery(2) {
		t.Fatalf("prepared on the connection: %q, want the two texts once each", got)
	}
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
}

func TestStatementsCloseTheLeastRecentlyUsedBeyondMax(t *testing.T) {
	db := onePool(t)
	s := pgexec.NewStatements(db, 2, nil)
	runNumber(t, s, 1, 1)
	runNumber(t, s, 2, 1)
	runNumber(t, s, 1, 2) // 1 is now the most recently used
	runNumber(t, s, 3, 1) // evicts 2
	got := preparedOnConnection(t, db)
	if want := []string{numberQuery(1), numberQuery(3)}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("prepared on the connection: %q, want %q", got, want)
	}
	runNumber(t, s, 2, 5) // prepared again, evicting 1
	if got := preparedOnConnection(t, db); len(got) != 2 || got[0] != numberQuery(2) {
		t.Fatalf("after running 2 again: %q", got)
	}
}

func TestStatementsOffRunsEverythingUnprepared(t *testing.T) {
	db := onePool(t)
	s := pgexec.NewStatements(db, 0, nil)
	runNumber(t, s, 1, 1)
	if got := preparedOnConnection(t, db); len(got) != 0 || s.Len() != 0 || s.Enabled() {
		t.Fatalf("with max 0: prepared %q, Len %d, Enabled %v", got, s.Len(), s.Enabled())
	}
}

func TestAStatementThatCannotBePreparedReportsItsOwnError(t *testing.T) {
	db := onePool(t)
	s := pgexec.NewStatements(db, 10, nil)
	_, err := pgexec.JSON(context.Background(), s, `SELECT row_to_json(t)::text FROM no_such_table t WHERE id = $1`, 1)
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("err = %v, want undefined_table", err)
	}
	if s.Len() != 0 || !s.Enabled() {
		t.Fatalf("a failed prepare left Len %d, Enabled %v", s.Len(), s.Enabled())
	}
}

// A generate alters tables under statements prepared from the previous
// version: PostgreSQL re-plans them; one that names a column that is gone
// fails as a schema change, which the API re-plans from the new version.
func TestPreparedStatementsFollowSchemaChanges(t *testing.T) {
	db := onePool(t)
	ctx := context.Background()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`DROP TABLE IF EXISTS evolving; CREATE TABLE evolving (id int PRIMARY KEY, name text, note text); INSERT INTO evolving VALUES (1, 'a', 'x')`)
	s := pgexec.NewStatements(db, 10, nil)
	get := `SELECT row_to_json(r)::text FROM (SELECT t.id, t.name FROM evolving t WHERE t.id = $1) r`
	read := func() (string, error) {
		out, err := pgexec.JSON(ctx, s, get, 1)
		return string(out), err
	}
	if out, err := read(); err != nil || out != `{"id":1,"name":"a"}` {
		t.Fatalf("first read: %s, %v", out, err)
	}
	exec(`ALTER TABLE evolving ADD COLUMN extra int; ALTER TABLE evolving DROP COLUMN note`)
	if out, err := read(); err != nil || out != `{"id":1,"name":"a"}` {
		t.Fatalf("after adding and dropping other columns: %s, %v", out, err)
	}
	exec(`DROP TABLE evolving; CREATE TABLE evolving (id int PRIMARY KEY, name text); INSERT INTO evolving VALUES (1, 'b')`)
	if out, err := read(); err != nil || out != `{"id":1,"name":"b"}` {
		t.Fatalf("after re-creating the table: %s, %v", out, err)
	}
	exec(`ALTER TABLE evolving RENAME COLUMN name TO title`)
	_, err := read()
	table := &schema.CTable{Name: "evolving"}
	if !errors.Is(pgexec.MapError(err, table, pgexec.OpRead), pgexec.ErrSchemaChanged) {
		t.Fatalf("after renaming a selected column: %v, want a schema change", err)
	}
	if !s.Enabled() {
		t.Fatal("a schema change turned preparing off")
	}
}

// Behind a pooler in transaction mode a connection loses its named
// statements; the request still succeeds and the pool stops preparing.
func TestAConnectionThatForgetsItsStatementsTurnsPreparingOff(t *testing.T) {
	db := onePool(t)
	s := pgexec.NewStatements(db, 10, nil)
	runNumber(t, s, 1, 1)
	if _, err := db.Exec(`DEALLOCATE ALL`); err != nil {
		t.Fatal(err)
	}
	runNumber(t, s, 1, 2) // fails prepared, succeeds unprepared
	if s.Enabled() {
		t.Fatal("preparing is still on after the connection lost its statements")
	}
	runNumber(t, s, 4, 3)
}

func TestWritesRunPrepared(t *testing.T) {
	db := onePool(t)
	if _, err := db.Exec(`DROP TABLE IF EXISTS written; CREATE TABLE written (id serial PRIMARY KEY, v text)`); err != nil {
		t.Fatal(err)
	}
	s := pgexec.NewStatements(db, 10, nil)
	insert := `INSERT INTO written (v) VALUES ($1) RETURNING row_to_json(written)::text`
	for i, v := range []string{"one", "two"} {
		out, err := pgexec.JSON(context.Background(), s, insert, v)
		if want := fmt.Sprintf(`{"id":%d,"v":"%s"}`, i+1, v); err != nil || string(out) != want {
			t.Fatalf("insert %d: %s, %v; want %s", i, out, err, want)
		}
	}
	if got := preparedOnConnection(t, db); len(got) != 1 || got[0] != insert {
		t.Fatalf("prepared: %q", got)
	}
}

// Many requests over more texts than the cache holds: statements are
// closed while others start, and no request sees a closed statement.
func TestStatementsUnderConcurrentEviction(t *testing.T) {
	db, err := sql.Open("postgres", testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	defer db.Close()
	s := pgexec.NewStatements(db, 3, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for n := 0; n < 150; n++ {
				i := (g*7 + n) % 10
				out, err := pgexec.JSON(context.Background(), s, numberQuery(i), n)
				if want := fmt.Sprintf(`{"q" : %d, "n" : %d}`, i, n); err != nil || string(out) != want {
					errs <- fmt.Errorf("goroutine %d, query %d: %s, %v", g, i, out, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s.Len() > 3 || !s.Enabled() {
		t.Fatalf("Len %d (max 3), Enabled %v", s.Len(), s.Enabled())
	}
}
