package caddymodule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestGlobalOptionParsesEverySubdirective(t *testing.T) {
	d := caddyfile.NewTestDispenser(`tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		redis_url redis://127.0.0.1:6379/0
		secret {env.TABLESMITH_SECRET}
		default_plan pro
		max_body 2MiB
		max_bulk_rows 500
		max_connections 7
		max_page_size 1000
		prepared_statements 64
		project_concurrency 3
		project_queue_wait 500ms
		export_timeout 15m
		realtime_retention 30m
		replica_url {env.TABLESMITH_REPLICA_URL}
		replica_url postgres://reader@10.0.0.3:5432/tablesmith
		max_replica_lag 500ms
		data_server east {
			url {env.TABLESMITH_EAST_URL}
			replica_url postgres://reader@10.0.1.3:5432/tablesmith
		}
		data_server west-2 {
			url postgres://ts@10.0.2.2:5432/tablesmith
		}
		plan free {
			rate 100/hour
			projects 1
		}
		plan team {
			rate 50/minute
			projects unlimited
			statement_timeout 8s
			realtime_streams 0
		}
	}`)
	var a App
	if err := a.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	want := App{DatabaseURL: "{env.TABLESMITH_DATABASE_URL}", RedisURL: "redis://127.0.0.1:6379/0", Secret: "{env.TABLESMITH_SECRET}",
		DefaultPlan: "pro", MaxBody: 2 << 20, MaxBulkRows: 500, MaxConnections: 7, MaxPageSize: 1000, PreparedStatements: 64,
		ProjectConcurrency: 3, ProjectQueueWait: caddy.Duration(500 * time.Millisecond),
		ExportTimeout: caddy.Duration(15 * time.Minute), RealtimeRetention: caddy.Duration(30 * time.Minute),
		ReplicaURLs:   []string{"{env.TABLESMITH_REPLICA_URL}", "postgres://reader@10.0.0.3:5432/tablesmith"},
		MaxReplicaLag: caddy.Duration(500 * time.Millisecond),
		DataServers: []DataServerConfig{{Name: "east", URL: "{env.TABLESMITH_EAST_URL}", ReplicaURLs: []string{"postgres://reader@10.0.1.3:5432/tablesmith"}},
			{Name: "west-2", URL: "postgres://ts@10.0.2.2:5432/tablesmith"}},
		Plans: map[string]PlanConfig{"free": {RatePerHour: 100, Projects: 1},
			"team": {RatePerHour: 3000, Projects: -1, StatementTimeout: caddy.Duration(8 * time.Second), RealtimeStreams: new(int)}}}
	got, _ := json.Marshal(a)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("parsed\n%s\nwant\n%s", got, exp)
	}
}

func TestGlobalOptionRejectsBadValuesNamingThem(t *testing.T) {
	cases := map[string]struct{ input, wantErr string }{
		"unknown option":      {"tablesmith {\ncolour blue\n}", `unknown tablesmith option "colour"`},
		"bad size":            {"tablesmith {\nmax_body lots\n}", `max_body: "lots" is not a size`},
		"missing value":       {"tablesmith {\ndatabase_url\n}", `database_url takes exactly one value`},
		"two values":          {"tablesmith {\nsecret a b\n}", `secret takes exactly one value`},
		"bad pool size":       {"tablesmith {\nmax_connections 0\n}", `max_connections: "0" is not a positive number`},
		"page size too big":   {"tablesmith {\nmax_page_size 20000\n}", `max_page_size: "20000" is not a number from 100 to 10000`},
		"bad bulk rows":       {"tablesmith {\nmax_bulk_rows none\n}", `max_bulk_rows: "none" is not a positive number`},
		"bad statement count": {"tablesmith {\nprepared_statements many\n}", `prepared_statements: "many" is not a positive number or off`},
		"bad rate":            {"tablesmith {\nplan free {\nrate fast\nprojects 1\n}\n}", `plan free: rate "fast"`},
		"bad rate period":     {"tablesmith {\nplan free {\nrate 5/week\nprojects 1\n}\n}", `the period must be hour or minute`},
		"bad projects":        {"tablesmith {\nplan free {\nrate 5/hour\nprojects -3\n}\n}", `plan free: projects "-3"`},
		"incomplete plan":     {"tablesmith {\nplan free {\nrate 5/hour\n}\n}", `plan free needs both rate and projects`},
		"unknown plan key":    {"tablesmith {\nplan free {\nburst 5\n}\n}", `plan free: unknown option "burst"`},
		"bad concurrency":     {"tablesmith {\nproject_concurrency 0\n}", `project_concurrency: "0" is not a positive number or off`},
		"bad queue wait":      {"tablesmith {\nproject_queue_wait soon\n}", `project_queue_wait: "soon" is not a positive duration`},
		"short retention":     {"tablesmith {\nrealtime_retention 10s\n}", `realtime_retention: "10s" is not a duration of at least 1m`},
		"bad stream cap":      {"tablesmith {\nplan free {\nrate 5/hour\nprojects 1\nrealtime_streams lots\n}\n}", `plan free: realtime_streams "lots"`},
		"short export bound":  {"tablesmith {\nexport_timeout 10ms\n}", `export_timeout: "10ms" is not a duration of at least 1s`},
		"bad timeout":         {"tablesmith {\nplan free {\nrate 5/hour\nprojects 1\nstatement_timeout 0s\n}\n}", `plan free: statement_timeout "0s" is not a positive duration`},
		"arguments instead":   {`tablesmith postgres://x`, `tablesmith takes a block`},
		"two replica urls":    {"tablesmith {\nreplica_url a b\n}", `replica_url takes exactly one URL`},
		"bad replica lag":     {"tablesmith {\nmax_replica_lag 5ms\n}", `max_replica_lag: "5ms" is not a duration of at least 100ms`},
		"data server no url":  {"tablesmith {\ndata_server east {\nreplica_url x\n}\n}", `data_server east needs a url`},
		"data server no name": {"tablesmith {\ndata_server {\nurl x\n}\n}", `data_server takes a name and a block`},
		"data server key":     {"tablesmith {\ndata_server east {\nhost x\n}\n}", `data_server east: unknown option "host"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var a App
			err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, c.wantErr)
			}
		})
	}
}

func TestPreparedStatementsCanBeTurnedOff(t *testing.T) {
	var a App
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith {\nprepared_statements off\n}")); err != nil {
		t.Fatal(err)
	}
	if a.PreparedStatements != -1 {
		t.Fatalf("prepared_statements off parsed as %d, want -1", a.PreparedStatements)
	}
}

func TestHandlerDirectivesTakeNoArguments(t *testing.T) {
	var h APIHandler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`tablesmith_api`)); err != nil {
		t.Fatal(err)
	}
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`tablesmith_api extra`))
	if err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Fatalf("error = %v", err)
	}
	var p PlatformHandler
	err = p.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith_platform {\nfoo\n}"))
	if err == nil || !strings.Contains(err.Error(), "takes no block") {
		t.Fatalf("error = %v", err)
	}
}

func TestProjectConcurrencyCanBeTurnedOff(t *testing.T) {
	var a App
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith {\nproject_concurrency off\n}")); err != nil {
		t.Fatal(err)
	}
	if a.ProjectConcurrency != -1 {
		t.Fatalf("project_concurrency off parsed as %d, want -1", a.ProjectConcurrency)
	}
}

func TestAPlanWithoutStatementTimeoutKeepsTheBuiltInOneOrThirtySeconds(t *testing.T) {
	a := App{Plans: map[string]PlanConfig{
		"free": {RatePerHour: 10, Projects: 1},
		"team": {RatePerHour: 10, Projects: 1},
		"gold": {RatePerHour: 10, Projects: 1, StatementTimeout: caddy.Duration(45 * time.Second)}}}
	set := a.planSet()
	for name, want := range map[string]time.Duration{"free": 5 * time.Second, "pro": 15 * time.Second, "unlimited": 30 * time.Second,
		"team": 30 * time.Second, "gold": 45 * time.Second} {
		if got := set[name].StatementTimeout; got != want {
			t.Errorf("plan %s: statement timeout %v, want %v", name, got, want)
		}
	}
}

func TestRequestTimeoutTakesADurationOfAtLeast100ms(t *testing.T) {
	cases := []struct {
		value   string
		want    time.Duration
		wantErr string
	}{
		{"10s", 10 * time.Second, ""},
		{"1500ms", 1500 * time.Millisecond, ""},
		{"2m", 2 * time.Minute, ""},
		{"50ms", 0, `request_timeout: "50ms" is not a duration of at least 100ms`},
		{"soon", 0, `request_timeout: "soon" is not a duration`},
		{"", 0, "request_timeout takes exactly one duration"},
		{"1s 2s", 0, "request_timeout takes exactly one duration"},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			var a App
			err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith {\nrequest_timeout " + c.value + "\n}"))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if time.Duration(a.RequestTimeout) != c.want {
				t.Fatalf("request_timeout %s parsed as %v", c.value, time.Duration(a.RequestTimeout))
			}
			raw, _ := json.Marshal(a)
			if !strings.Contains(string(raw), `"request_timeout":`) {
				t.Fatalf("the JSON config lacks request_timeout: %s", raw)
			}
		})
	}
}

// TestReplicaURLsResolvePlaceholdersAtProvision: replica URLs are {env.*}
// placeholders in the JSON config, resolved (without I/O) when the app
// is provisioned; one that resolves to nothing stops the load.
func TestReplicaURLsResolvePlaceholdersAtProvision(t *testing.T) {
	t.Setenv("TS_TEST_REPLICA_URL", "postgres://reader@127.0.0.1:3/replicated?sslmode=disable")
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	a := &App{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable", ReplicaURLs: []string{"{env.TS_TEST_REPLICA_URL}"},
		MaxReplicaLag: caddy.Duration(2 * time.Second)}
	if err := a.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Cleanup() }()
	if st, _ := a.Service().ReplicaStats(); len(st) != 1 || st[0].Name != "127.0.0.1:3/replicated" {
		t.Fatalf("replicas of the provisioned service: %+v", st)
	}
	empty := &App{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable", ReplicaURLs: []string{"{env.TS_TEST_UNSET_REPLICA}"}}
	if err := empty.Provision(ctx); err == nil || !strings.Contains(err.Error(), "replica_url 1 is empty") {
		t.Fatalf("an empty replica_url: %v", err)
	}
}

// TestDataServersResolvePlaceholdersAndAreCheckedAtProvision: a data
// server's URLs are {env.*} placeholders resolved at provision, its
// replica is watched like database_url's, and a bad name, a duplicate or
// an empty URL stops the config.
func TestDataServersResolvePlaceholdersAndAreCheckedAtProvision(t *testing.T) {
	t.Setenv("TS_TEST_EAST_URL", "postgres://ts@127.0.0.1:1/east?sslmode=disable")
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	a := &App{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
		DataServers: []DataServerConfig{{Name: "east", URL: "{env.TS_TEST_EAST_URL}", ReplicaURLs: []string{"postgres://r@127.0.0.1:4/east-replica?sslmode=disable"}}}}
	if err := a.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Cleanup() }()
	if st, _ := a.Service().ReplicaStats(); len(st) != 1 || st[0].Name != "127.0.0.1:4/east-replica" {
		t.Fatalf("replicas of the provisioned service: %+v", st)
	}
	for name, c := range map[string]struct {
		servers []DataServerConfig
		want    string
	}{
		"reserved":  {[]DataServerConfig{{Name: "default", URL: "postgres://x"}}, `data_server "default"`},
		"bad name":  {[]DataServerConfig{{Name: "eu west", URL: "postgres://x"}}, `data_server "eu west"`},
		"duplicate": {[]DataServerConfig{{Name: "a", URL: "postgres://x"}, {Name: "a", URL: "postgres://y"}}, `data_server a is defined twice`},
		"empty url": {[]DataServerConfig{{Name: "a", URL: "{env.TS_TEST_UNSET_URL}"}}, `data_server a: url is empty`},
	} {
		bad := &App{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable", DataServers: c.servers}
		if err := bad.Provision(ctx); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
