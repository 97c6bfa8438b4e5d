package caddymodule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
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

// TestEachSubdirectiveReadsItsSyntaxAndRefusesBadSyntaxWithItsLine: every
// single-line subdirective and every line of the plan and data_server
// blocks, with good values (what the JSON config then holds) and values
// whose syntax is wrong (refused with the file and line). Values whose
// syntax is right but which break a bound parse here and are refused by
// Validate (TestABadValueGetsTheSameMessageFromACaddyfileAndFromJSON).
func TestEachSubdirectiveReadsItsSyntaxAndRefusesBadSyntaxWithItsLine(t *testing.T) {
	cases := []struct {
		block string // lines of the tablesmith block
		json  string // the app's JSON after a good parse
		err   string // or the syntax error, which must name line 2
	}{
		{block: "database_url postgres://u@h/db", json: `{"database_url":"postgres://u@h/db"}`},
		{block: "database_url", err: "database_url takes exactly one value"},
		{block: "redis_url redis://127.0.0.1:6379/1", json: `{"redis_url":"redis://127.0.0.1:6379/1"}`},
		{block: "secret a b", err: "secret takes exactly one value"},
		{block: "secret {env.TS_SECRET}", json: `{"secret":"{env.TS_SECRET}"}`},
		{block: "default_plan pro", json: `{"default_plan":"pro"}`},
		{block: "default_plan", err: "default_plan takes exactly one value"},
		{block: "max_body 512KB", json: `{"max_body":512000}`},
		{block: "max_body 1MiB", json: `{"max_body":1048576}`},
		{block: "max_body lots", err: `max_body: "lots" is not a size (e.g. 512KB, 1MiB)`},
		{block: "max_body 0", err: "max_body: 0 is not a value of this option (leave the line out for the default)"},
		{block: "max_body 1MiB 2MiB", err: "max_body takes exactly one size"},
		{block: "max_bulk_rows 500", json: `{"max_bulk_rows":500}`},
		{block: "max_bulk_rows none", err: `max_bulk_rows: "none" is not a whole number`},
		{block: "max_connections 7", json: `{"max_connections":7}`},
		{block: "max_connections 0", err: "max_connections: 0 is not a value of this option"},
		{block: "max_connections -3", json: `{"max_connections":-3}`}, // Validate's to refuse
		{block: "max_page_size 1000", json: `{"max_page_size":1000}`},
		{block: "max_page_size 1.5", err: `max_page_size: "1.5" is not a whole number`},
		{block: "prepared_statements 64", json: `{"prepared_statements":64}`},
		{block: "prepared_statements off", json: `{"prepared_statements":-1}`},
		{block: "prepared_statements many", err: `prepared_statements: "many" is not a whole number or off`},
		{block: "prepared_statements", err: "prepared_statements takes exactly one number, or off"},
		{block: "project_concurrency 3", json: `{"project_concurrency":3}`},
		{block: "project_concurrency off", json: `{"project_concurrency":-1}`},
		{block: "project_concurrency 0", err: "project_concurrency: 0 is not a value of this option"},
		{block: "project_queue_wait 500ms", json: `{"project_queue_wait":500000000}`},
		{block: "project_queue_wait soon", err: `project_queue_wait: "soon" is not a duration (e.g. 500ms, 10s, 5m)`},
		{block: "request_timeout 10s", json: `{"request_timeout":10000000000}`},
		{block: "request_timeout 1d", json: `{"request_timeout":86400000000000}`}, // Caddy's durations take days
		{block: "request_timeout 50ms", json: `{"request_timeout":50000000}`},     // Validate's to refuse
		{block: "request_timeout", err: "request_timeout takes exactly one duration, e.g. 10s"},
		{block: "request_timeout 1s 2s", err: "request_timeout takes exactly one duration, e.g. 10s"},
		{block: "request_timeout 0s", err: "request_timeout: 0 is not a value of this option"},
		{block: "export_timeout 15m", json: `{"export_timeout":900000000000}`},
		{block: "export_timeout later", err: `export_timeout: "later" is not a duration`},
		{block: "realtime_retention 1d", json: `{"realtime_retention":86400000000000}`},
		{block: "realtime_retention 1 h", err: "realtime_retention takes exactly one duration"},
		{block: "replica_url postgres://r1\nreplica_url postgres://r2", json: `{"replica_urls":["postgres://r1","postgres://r2"]}`},
		{block: "replica_url a b", err: "replica_url takes exactly one URL (repeat the line for more replicas)"},
		{block: "files_dir /var/lib/tablesmith/files", json: `{"files_dir":"/var/lib/tablesmith/files"}`},
		{block: "storage s3 {\nendpoint http://127.0.0.1:7070\nbucket files\naccess_key {env.K}\nsecret_key {env.S}\npath_style on\n}",
			json: `{"storage":{"kind":"s3","endpoint":"http://127.0.0.1:7070","bucket":"files","access_key":"{env.K}","secret_key":"{env.S}","path_style":true}}`},
		{block: "storage gcs {\nbucket b\n}", err: "storage takes the kind s3 and a block"},
		{block: "storage s3 {\nacl public\n}", err: `storage s3: unknown option "acl" (known: endpoint, bucket, region, access_key, secret_key, path_style)`},
		{block: "storage s3 {\npath_style yes\n}", err: `storage s3: path_style takes on or off, not "yes"`},
		{block: "files_dir", err: "files_dir takes exactly one value"},
		{block: "smtp {\nhost smtp.example.com\nport 2525\nuser {env.U}\npassword {env.P}\nfrom \"Acme <no-reply@example.com>\"\ntls tls\n}",
			json: `{"smtp":{"host":"smtp.example.com","port":2525,"user":"{env.U}","password":"{env.P}","from":"Acme \u003cno-reply@example.com\u003e","tls":"tls"}}`},
		{block: "smtp {\nhost h\nport 70000\n}", err: `smtp: port must be a number from 1 to 65535, not "70000"`},
		{block: "smtp {\nhost h\ntls ssl\n}", err: `smtp: tls takes starttls, tls or none, not "ssl"`},
		{block: "smtp {\nrelay h\n}", err: `smtp: unknown option "relay" (known: host, port, user, password, from, tls)`},
		{block: "smtp h", err: "smtp takes a block, not arguments"},
		{block: "max_file_size 10MiB", json: `{"max_file_size":10485760}`},
		{block: "max_file_size big", err: `max_file_size: "big" is not a size`},
		{block: "max_replica_lag 500ms", json: `{"max_replica_lag":500000000}`},
		{block: "max_replica_lag 1x", err: `max_replica_lag: "1x" is not a duration`},
		{block: "colour blue", err: `unknown tablesmith option "colour" (known: database_url, redis_url, secret, default_plan, max_body, max_bulk_rows, max_connections, max_page_size, prepared_statements, project_concurrency, project_queue_wait, request_timeout, export_timeout, realtime_retention, replica_url, max_replica_lag, request_log, webhook_allow_private, files_dir, max_file_size, files_grace, purge_url, data_server, storage, smtp, plan)`},
		{block: "request_log off", json: `{"request_log":false}`},
		{block: "webhook_allow_private on", json: `{"webhook_allow_private":true}`},
		{block: "webhook_allow_private yes", err: `webhook_allow_private: "yes" is not on or off`},
		{block: "request_log on", json: `{"request_log":true}`},
		{block: "request_log maybe", err: `request_log: "maybe" is not on or off`},

		{block: "plan team {\nrate 100/h\nprojects 3\n}", json: `{"plans":{"team":{"rate_per_hour":100,"projects":3}}}`},
		{block: "plan team {\nrate 100-H\nprojects 0\n}", json: `{"plans":{"team":{"rate_per_hour":100,"projects":0}}}`},
		{block: "plan team {\nrate 5/m\nprojects unlimited\n}", json: `{"plans":{"team":{"rate_per_hour":300,"projects":-1}}}`},
		{block: "plan team {\nrate unlimited\nprojects 1\nstatement_timeout 1m\nrealtime_streams unlimited\n}",
			json: `{"plans":{"team":{"rate_per_hour":-1,"projects":1,"statement_timeout":60000000000,"realtime_streams":-1}}}`},
		{block: "plan team {\nrate fast\nprojects 1\n}", err: `plan team: rate: "fast" is not a rate: write <n>/hour, <n>/minute or unlimited`},
		{block: "plan team {\nrate 5/week\nprojects 1\n}", err: `plan team: rate: "5/week" is not a rate: the period must be hour or minute`},
		{block: "plan team {\nrate x/hour\nprojects 1\n}", err: `plan team: rate: "x/hour" is not a rate: the count must be a whole number`},
		{block: "plan team {\nrate 5/hour\nprojects many\n}", err: `plan team: projects: "many" is not a whole number or unlimited`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nstatement_timeout 0s\n}", err: "plan team: statement_timeout: 0 is not a value of this option"},
		{block: "plan team {\nrate 5/hour\nprojects 1\nstatement_timeout soon\n}", err: `plan team: statement_timeout: "soon" is not a duration`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nrealtime_streams lots\n}", err: `plan team: realtime_streams: "lots" is not a whole number or unlimited`},
		{block: "plan team {\nrate 5/hour 6/hour\nprojects 1\n}", err: "plan team: rate takes exactly one rate, e.g. 100/hour"},
		{block: "plan team {\nrate 5/hour\n}", err: "plan team needs both rate and projects"},
		{block: "plan team {\nburst 5\n}", err: `plan team: unknown option "burst" (known: rate, projects, statement_timeout, realtime_streams, log_retention, webhooks, webhook_deliveries, file_storage, max_file_size)`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nfile_storage 1GiB\nmax_file_size unlimited\n}", json: `{"plans":{"team":{"rate_per_hour":5,"projects":1,"file_storage":1073741824,"max_file_size":-1}}}`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nfile_storage lots\n}", err: `plan team: file_storage: "lots" is not a size (e.g. 100MiB) or unlimited`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nwebhooks 3\nwebhook_deliveries 60/minute\n}", json: `{"plans":{"team":{"rate_per_hour":5,"projects":1,"webhooks":3,"webhook_deliveries":3600}}}`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nwebhooks unlimited\nwebhook_deliveries unlimited\n}", json: `{"plans":{"team":{"rate_per_hour":5,"projects":1,"webhooks":-1,"webhook_deliveries":-1}}}`},
		{block: "plan team {\nrate 5/hour\nprojects 1\nlog_retention 72h\n}", json: `{"plans":{"team":{"rate_per_hour":5,"projects":1,"log_retention":259200000000000}}}`},
		{block: "plan {\nrate 5/hour\n}", err: "plan takes a name and a block"},

		{block: "data_server east {\nurl postgres://e\nreplica_url postgres://e1\n}",
			json: `{"data_servers":[{"name":"east","url":"postgres://e","replica_urls":["postgres://e1"]}]}`},
		{block: "data_server east {\nreplica_url x\n}", json: `{"data_servers":[{"name":"east","url":"","replica_urls":["x"]}]}`}, // Validate's to refuse
		{block: "data_server {\nurl x\n}", err: "data_server takes a name and a block"},
		{block: "data_server east {\nhost x\n}", err: `data_server east: unknown option "host" (known: url, replica_url)`},
		{block: "data_server east {\nurl a b\n}", err: "data_server east: url takes exactly one value"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.block, "\n", " "), func(t *testing.T) {
			var a App
			err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith {\n" + c.block + "\n}"))
			if c.err != "" {
				// The error names the line of the offending option, or
				// for a block's line the line within the block.
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), ", at Testfile:") {
					t.Fatalf("error = %v, want it to contain %q and the line", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(a)
			if string(got) != c.json {
				t.Fatalf("parsed %s, want %s", got, c.json)
			}
		})
	}
}

func TestASyntaxErrorNamesTheLineOfTheOption(t *testing.T) {
	var a App
	err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith {\nsecret s\nmax_body 1MiB\nmax_connections many\n}"))
	if err == nil || !strings.HasSuffix(err.Error(), ", at Testfile:4") {
		t.Fatalf("error = %v, want it to end with the line, 4", err)
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

// TestABadValueGetsTheSameMessageFromACaddyfileAndFromJSON: every bound
// is Validate's, so a value that breaks one stops the load with the same
// message whether it was written in a Caddyfile or in the JSON config
// (what Caddy's admin API and autosave hold). Each config is loaded with
// caddy.Validate, as `caddy validate` and a reload do.
func TestABadValueGetsTheSameMessageFromACaddyfileAndFromJSON(t *testing.T) {
	const dbURL = "postgres://nobody@127.0.0.1:1/none?sslmode=disable"
	cases := []struct {
		caddyfile string // lines of the tablesmith block; empty: the Caddyfile cannot say it
		json      string // members of the app's JSON
		want      string
	}{
		{"request_timeout 50ms", `"request_timeout": "50ms"`, "request_timeout: 50ms is not a duration of at least 100ms"},
		{"request_timeout -1s", `"request_timeout": -1000000000`, "request_timeout: -1s is not a duration of at least 100ms"},
		{"export_timeout 10ms", `"export_timeout": "10ms"`, "export_timeout: 10ms is not a duration of at least 1s"},
		{"realtime_retention 10s", `"realtime_retention": "10s"`, "realtime_retention: 10s is not a duration of at least 1m"},
		{"max_replica_lag 5ms", `"max_replica_lag": "5ms"`, "max_replica_lag: 5ms is not a duration of at least 100ms"},
		{"project_queue_wait -2s", `"project_queue_wait": "-2s"`, "project_queue_wait: -2s is not a positive duration"},
		{"max_page_size 20000", `"max_page_size": 20000`, "max_page_size: 20000 is not a number from 100 to 10000"},
		{"max_page_size 50", `"max_page_size": 50`, "max_page_size: 50 is not a number from 100 to 10000"},
		{"max_connections -3", `"max_connections": -3`, "max_connections: -3 is not a number of at least 1"},
		{"max_bulk_rows -1", `"max_bulk_rows": -1`, "max_bulk_rows: -1 is not a number of at least 1"},
		{"prepared_statements -5", `"prepared_statements": -5`, "prepared_statements: -5 is not a positive number or off (-1)"},
		{"project_concurrency -2", `"project_concurrency": -2`, "project_concurrency: -2 is not a positive number or off (-1)"},
		{"", `"max_body": -5`, "max_body: -5 is not a positive size"},
		{"plan team {\nrate 5/hour\nprojects 1\nlog_retention 10m\n}", `"plans": {"team": {"rate_per_hour": 5, "projects": 1, "log_retention": "10m"}}`,
			"plan team: log_retention: 10m0s is not a duration of at least 1h"},
		{"plan team {\nrate 0/hour\nprojects 1\n}", `"plans": {"team": {"rate_per_hour": 0, "projects": 1}}`,
			"plan team: rate 0/hour is not a positive rate or unlimited (-1)"},
		{"plan team {\nrate 5/hour\nprojects -3\n}", `"plans": {"team": {"rate_per_hour": 5, "projects": -3}}`,
			"plan team: projects -3 is not a number of at least 0 or unlimited (-1)"},
		{"plan team {\nrate 5/hour\nprojects 1\nstatement_timeout -5s\n}", `"plans": {"team": {"rate_per_hour": 5, "projects": 1, "statement_timeout": "-5s"}}`,
			"plan team: statement_timeout: -5s is not a positive duration"},
		{"plan team {\nrate 5/hour\nprojects 1\nrealtime_streams -2\n}", `"plans": {"team": {"rate_per_hour": 5, "projects": 1, "realtime_streams": -2}}`,
			"plan team: realtime_streams -2 is not a number of at least 0 or unlimited (-1)"},
		{"data_server east {\nreplica_url postgres://r\n}", `"data_servers": [{"name": "east", "url": "", "replica_urls": ["postgres://r"]}]`,
			"data_server east needs a url"},
		{"data_server default {\nurl postgres://d\n}", `"data_servers": [{"name": "default", "url": "postgres://d"}]`,
			`data_server "default": a name is letters, digits, '-' and '_', and not "default"`},
		{"data_server a {\nurl postgres://x\n}\ndata_server a {\nurl postgres://y\n}", `"data_servers": [{"name": "a", "url": "postgres://x"}, {"name": "a", "url": "postgres://y"}]`,
			"data_server a is defined twice"},
	}
	load := func(t *testing.T, raw []byte) error {
		t.Helper()
		var cfg caddy.Config
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatalf("config %s: %v", raw, err)
		}
		return caddy.Validate(&cfg)
	}
	fromCaddyfile := func(t *testing.T, block string) error {
		t.Helper()
		text := "{\n\tadmin off\n\ttablesmith {\n\t\tdatabase_url " + dbURL + "\n" + block + "\n\t}\n}\n"
		raw, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			t.Fatalf("adapting %q: %v", text, err)
		}
		return load(t, raw)
	}
	fromJSON := func(t *testing.T, members string) error {
		t.Helper()
		return load(t, []byte(`{"admin": {"disabled": true}, "apps": {"tablesmith": {"database_url": "`+dbURL+`", `+members+`}}}`))
	}
	// The harness itself loads a good config.
	if err := fromCaddyfile(t, "request_timeout 2s"); err != nil {
		t.Fatalf("a good Caddyfile: %v", err)
	}
	if err := fromJSON(t, `"request_timeout": "2s"`); err != nil {
		t.Fatalf("a good JSON config: %v", err)
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if err := fromJSON(t, c.json); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("JSON config: error = %v, want it to contain %q", err, c.want)
			}
			if c.caddyfile == "" {
				return
			}
			if err := fromCaddyfile(t, c.caddyfile); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Caddyfile: error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestValidateReportsEveryBadValueAtOnce(t *testing.T) {
	a := App{RequestTimeout: caddy.Duration(time.Millisecond), MaxPageSize: 1, Plans: map[string]PlanConfig{"x": {RatePerHour: 0, Projects: 1}}}
	err := a.Validate()
	for _, want := range []string{"request_timeout: 1ms", "max_page_size: 1 ", "plan x: rate 0/hour"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want it to contain %q", err, want)
		}
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

func TestTheCacheDirectiveReadsItsBoundsAndRefusesBadOnes(t *testing.T) {
	var h CacheHandler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("tablesmith_cache {\n\tmax_size 32MiB\n\tmax_answer 512KiB\n}")); err != nil {
		t.Fatal(err)
	}
	if h.MaxSize != 32<<20 || h.MaxAnswer != 512<<10 || h.Validate() != nil {
		t.Fatalf("parsed %+v, validate %v", h, h.Validate())
	}
	for src, want := range map[string]string{
		"tablesmith_cache 5":                                        "wrong argument count",
		"tablesmith_cache {\n\tmax_ttl 5\n}":                        `unknown subdirective "max_ttl"`,
		"tablesmith_cache {\n\tmax_size\n}":                         "max_size",
		"tablesmith_cache {\n\tmax_size 1KiB\n}":                    "at least 1MiB",
		"tablesmith_cache {\n\tmax_size 2MiB\n\tmax_answer 4MiB\n}": "larger than max_size",
	} {
		var h CacheHandler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(src))
		if err == nil {
			err = h.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", src, err, want)
		}
	}
}
