package schemafuzz

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "schemafuzz") }

// The run's settings: flags, each defaulting to an environment variable so
// that `make test` and `go test ./...` can set them too (docs/testing.md).
var (
	seedFlag = flag.Int64("schemafuzz.seed", envInt("TABLESMITH_SCHEMAFUZZ_SEED"),
		"run the case of this seed alone (the seed a failure printed)")
	timeFlag = flag.Duration("schemafuzz.time", envDuration("TABLESMITH_SCHEMAFUZZ_TIME", shortRun),
		"generate cases for this long (the long run: 10m, 1h)")
	shrinkFlag = flag.Duration("schemafuzz.shrink", envDuration("TABLESMITH_SCHEMAFUZZ_SHRINK", 3*time.Minute),
		"how long a failure may be shrunk")
)

const (
	// shortRun bounds the cases of the ordinary test run: with the
	// service's start and the last case, the package stays within about
	// 40 s under -race on a loaded two-core machine.
	shortRun = 20 * time.Second
	// opsPerCase is how many requests a case sends.
	opsPerCase = 60
	// maxShrinkRuns bounds the cases a shrink runs, whatever its time.
	maxShrinkRuns = 400
)

func envInt(name string) int64 {
	n, _ := strconv.ParseInt(os.Getenv(name), 10, 64)
	return n
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func TestRandomSchemasAndRequestsKeepTheContractAndTheRows(t *testing.T) {
	rn := newRunner(t)
	if *seedFlag != 0 {
		c := genCase(*seedFlag, opsPerCase)
		if f, log := rn.run(c); f != nil {
			report(t, rn, c, f, log)
		}
		return
	}
	base := time.Now().UnixNano() % 1_000_000_000_000
	start := time.Now()
	n, requests := 0, 0
	for seed := base; n < 2 || time.Since(start) < *timeFlag; seed++ {
		c := genCase(seed, opsPerCase)
		f, log := rn.run(c)
		n, requests = n+1, requests+len(log)
		if f != nil {
			report(t, rn, c, f, log)
			return
		}
	}
	t.Logf("%d schemas (seeds %d to %d), %d requests, no failure", n, base, base+int64(n)-1, requests)
}

// report shrinks a failing case and fails the test with it: the seed, how
// to run it again, and the smallest case as JSON for testdata/regressions.
func report(t *testing.T, rn *runner, c fuzzCase, f *failure, log []exchange) {
	t.Helper()
	t.Logf("seed %d failed: %v", c.Seed, f)
	sh := shrink(rn, c, f, log, *shrinkFlag, maxShrinkRuns)
	out := struct {
		fuzzCase
		Failure  *failure   `json:"failure"`
		Requests []exchange `json:"requests"`
	}{sh.best, sh.fail, sh.log}
	out.Name = sh.fail.Kind
	raw, _ := json.MarshalIndent(out, "", "  ")
	t.Fatalf("schemafuzz: seed %d: %v\n\nrun it again: TABLESMITH_SCHEMAFUZZ_SEED=%d go test -run TestRandomSchemas ./internal/schemafuzz/\n\n"+
		"shrunk in %d runs to %d tables and %d requests; once fixed, keep it as internal/schemafuzz/testdata/regressions/<name>.json:\n%s",
		c.Seed, f, c.Seed, sh.runs, len(sh.best.Schema.Tables), len(sh.best.Ops), raw)
}

// The cases failures once shrunk to, kept so that what they found stays
// fixed (each file is a case as report prints it).
func TestEveryRegressionCaseRunsWithoutAFailure(t *testing.T) {
	files, err := filepath.Glob("testdata/regressions/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no regression cases in testdata/regressions")
	}
	rn := newRunner(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var c fuzzCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if f, log := rn.run(c); f != nil {
				sent, _ := json.MarshalIndent(log, "", "  ")
				t.Fatalf("%s (%s) fails again: %v\nrequests:\n%s", file, c.Name, f, sent)
			}
		})
	}
}

func TestGeneratedDocumentsAreValidAndUseTheAwkwardNames(t *testing.T) {
	names := map[string]bool{}
	for seed := int64(1); seed <= 300; seed++ {
		c := genCase(seed, 5)
		if p := schema.Validate(c.Schema); len(p) > 0 {
			t.Fatalf("seed %d: the generated document is invalid: %v", seed, p)
		}
		raw, _ := json.Marshal(c.Schema)
		for _, name := range []string{`"n"`, `"o"`, `"t"`, `"select"`, `"tg_table_name"`, `"realtime":true`, `"on_delete":"set_null"`,
			`"auth":true`, `"junction":true`, `"owner_column"`, `"type":"password"`, `"id_type":"uuid"`} {
			if strings.Contains(string(raw), name) {
				names[name] = true
			}
		}
	}
	for _, want := range []string{`"n"`, `"o"`, `"t"`, `"select"`, `"tg_table_name"`, `"realtime":true`, `"on_delete":"set_null"`,
		`"auth":true`, `"junction":true`, `"owner_column"`, `"type":"password"`, `"id_type":"uuid"`} {
		if !names[want] {
			t.Errorf("300 generated documents never have %s", want)
		}
	}
}
