package store_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"

	_ "github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestMain(m *testing.M) { testpg.Main(m, "store") }

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMigrationsRunOnceEvenWhenNodesStartTogether(t *testing.T) {
	db := open(t, testpg.NewDatabase(t))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = store.Migrate(context.Background(), db)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Migrate(context.Background(), db); err != nil {
		t.Fatalf("a second start: %v", err)
	}
	var applied, files int
	if err := db.QueryRow(`SELECT count(*) FROM tablesmith.schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	entries, _ := store.MigrationNames()
	files = len(entries)
	if applied != files || files == 0 {
		t.Fatalf("%d migrations recorded for %d files", applied, files)
	}
}

func TestSecretIsCreatedOnceForConcurrentCallers(t *testing.T) {
	db := open(t, testpg.NewDatabase(t))
	if err := store.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	s := &store.Store{DB: db}
	secrets := make([]string, 6)
	var wg sync.WaitGroup
	for i := range secrets {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			v, err := s.Secret(context.Background())
			if err != nil {
				t.Error(err)
			}
			secrets[i] = v
		}(i)
	}
	wg.Wait()
	for _, v := range secrets {
		if v != secrets[0] || len(v) < 32 {
			t.Fatalf("secrets differ or are short: %q", secrets)
		}
	}
}

func TestProjectLimitHoldsUnderConcurrentCreates(t *testing.T) {
	db := open(t, testpg.URL(t))
	if err := store.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	s := &store.Store{DB: db}
	acc, err := s.CreateAccount(context.Background(), "limit-"+store.RandomID(6)+"@example.com", "L", "x", "free")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]error, 5)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, results[i] = s.CreateProject(context.Background(), acc.ID, "P", store.EngineManaged, nil, nil, 1, "")
		}(i)
	}
	wg.Wait()
	created, limited := 0, 0
	for _, err := range results {
		switch {
		case err == nil:
			created++
		case errors.Is(err, store.ErrLimit):
			limited++
		default:
			t.Fatal(err)
		}
	}
	if created != 1 || limited != 4 {
		t.Fatalf("created %d, limited %d; want 1 and 4", created, limited)
	}
}
