package extdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/schema/introspect"
)

func TestMain(m *testing.M) { testpg.Main(m, "extdb") }

func TestSealedConnectionsOpenOnlyWithTheirKey(t *testing.T) {
	t.Parallel()
	key := extdb.SealKey("master secret")
	const u = "postgres://app:pa55@db.internal:5432/shop?sslmode=require"
	a, err := extdb.Seal(key, u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := extdb.Seal(key, u)
	if a == b || strings.Contains(a, "pa55") || !strings.HasPrefix(a, "v1.") {
		t.Fatalf("sealed = %q and %q: each seal needs its own nonce and must hide the URL", a, b)
	}
	if got, err := extdb.Unseal(key, a); err != nil || got != u {
		t.Fatalf("unseal = %q, %v", got, err)
	}
	if _, err := extdb.Unseal(extdb.SealKey("another secret"), a); !errors.Is(err, extdb.ErrUnseal) {
		t.Fatalf("unseal with another secret = %v, want ErrUnseal", err)
	}
	// One character of the sealed bytes changed (not the last, whose low
	// bits a lenient base64 decoder may ignore; and always to another
	// character, which "AA" in place of the last two was not when a seal
	// happened to end in it).
	i := len(a) - 5
	swap := byte('A')
	if a[i] == 'A' {
		swap = 'B'
	}
	tampered := a[:i] + string(swap) + a[i+1:]
	if _, err := extdb.Unseal(key, tampered); !errors.Is(err, extdb.ErrUnseal) {
		t.Fatalf("unseal of a tampered value = %v, want ErrUnseal", err)
	}
}

func TestMaskedURLsHideOnlyThePassword(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://app:pa55@db:5432/shop?sslmode=disable": "postgres://app:****@db:5432/shop?sslmode=disable",
		"postgres://app:p%40ss@db/shop":                    "postgres://app:****@db/shop",
		"postgresql://app@db/shop":                         "postgresql://app@db/shop",
	} {
		if got := extdb.MaskURL(in); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConfigTakesNothingFromTheServersEnvironmentOrFiles(t *testing.T) {
	t.Setenv("PGPASSWORD", "operators-password")
	t.Setenv("PGHOSTADDR", "10.9.8.7")
	t.Setenv("PGOPTIONS", "-c search_path=evil")
	t.Setenv("PGSSLMODE", "disable")
	cfg, err := extdb.Config("postgres://app@db.example.com/shop", extdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Password != "" || cfg.Hostaddr.IsValid() || cfg.Options != "" || cfg.SSLMode != "require" || cfg.Port != 5432 {
		t.Fatalf("the environment leaked into a user's connection: %+v", cfg)
	}
	if cfg.Runtime["timezone"] != "UTC" || cfg.Runtime["statement_timeout"] != "30000" || cfg.ConnectTimeout != 5*time.Second {
		t.Fatalf("session settings = %v, connect timeout %s", cfg.Runtime, cfg.ConnectTimeout)
	}
	cfg, err = extdb.Config("postgres://app:pw@db:6543/shop?sslmode=disable&statement_timeout=1000&connect_timeout=60", extdb.Options{})
	if err != nil || cfg.Password != "pw" || cfg.Port != 6543 || cfg.SSLMode != "disable" || cfg.Runtime["statement_timeout"] != "1000" || cfg.ConnectTimeout != 5*time.Second {
		t.Fatalf("config = %+v, %v", cfg, err)
	}
	for _, bad := range []string{
		"mysql://app@db/shop", "postgres://db/shop", "postgres://app@db", "postgres://app@/shop",
		"postgres://app@db/shop?passfile=/root/.pgpass", "postgres://app@db/shop?sslkey=/etc/ssl/private/key.pem",
		"postgres://app@db/shop?service=prod", "postgres://app@db/shop?host=/var/run/postgresql",
		"postgres://app@db/shop?password=x", "postgres://app@a,b/shop", "postgres://app@db:99999/shop",
		"postgres://app@%2Fvar%2Frun%2Fpostgresql/shop",
	} {
		_, err := extdb.Config(bad, extdb.Options{})
		if p, ok := extdb.AsProblem(err); !ok || p.Kind != extdb.ProblemInvalidURL || p.Message == "" {
			t.Errorf("Config(%q) = %v, want an invalid_url problem", bad, err)
		}
	}
}

// fakeServer answers the first message of every connection with reply
// and closes it: enough PostgreSQL protocol to play a server that refuses.
func fakeServer(t *testing.T, reply func(first []byte) []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n int32
				if binary.Read(c, binary.BigEndian, &n) != nil || n < 4 || n > 10000 {
					return
				}
				body := make([]byte, n-4)
				if _, err := io.ReadFull(c, body); err != nil {
					return
				}
				_, _ = c.Write(reply(body)) // the client may have gone: that is what is tested
				time.Sleep(50 * time.Millisecond)
			}()
		}
	}()
	return ln.Addr().String()
}

// errorResponse is a FATAL ErrorResponse message with a SQLSTATE code.
func errorResponse(code, message string) []byte {
	var fields bytes.Buffer
	for _, f := range []struct {
		tag byte
		v   string
	}{{'S', "FATAL"}, {'V', "FATAL"}, {'C', code}, {'M', message}} {
		fields.WriteByte(f.tag)
		fields.WriteString(f.v)
		fields.WriteByte(0)
	}
	fields.WriteByte(0)
	out := []byte{'E'}
	out = binary.BigEndian.AppendUint32(out, uint32(fields.Len()+4))
	return append(out, fields.Bytes()...)
}

func TestInspectNamesEachConnectionProblem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	authAddr := fakeServer(t, func([]byte) []byte {
		return errorResponse("28P01", `password authentication failed for user "app"`)
	})
	noSSL := fakeServer(t, func([]byte) []byte { return []byte{'N'} })
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := closed.Addr().String()
	closed.Close()

	real := testpg.NewDatabase(t)
	missingDB, _ := url.Parse(real)
	missingDB.Path = "/no_such_db"
	control := testpg.NewDatabase(t)
	exec(t, control, `CREATE SCHEMA tablesmith; CREATE TABLE tablesmith.schema_migrations (version integer)`)

	cases := []struct {
		url, schema, kind, text string
	}{
		{"postgres://app:hunter2x@" + authAddr + "/shop?sslmode=disable", "public", extdb.ProblemAuthentication, `authentication failed for user "app"`},
		{"postgres://app:pw@" + noSSL + "/shop", "public", extdb.ProblemTLS, "sslmode=disable"},
		{"postgres://app:pw@" + refused + "/shop?sslmode=disable", "public", extdb.ProblemCannotConnect, "connection refused"},
		{missingDB.String(), "public", extdb.ProblemDatabaseNotFound, `database "no_such_db" does not exist`},
		{real, "nope", extdb.ProblemSchemaNotFound, `schema "nope" does not exist in this database (schemas you can use: public)`},
		{real, "", extdb.ProblemInvalidSchemaName, "schema"},
		{control, "tablesmith", extdb.ProblemControlDatabase, "Tablesmith's own database"},
	}
	for _, c := range cases {
		_, err := extdb.Inspect(ctx, c.url, c.schema, extdb.Options{ConnectTimeout: 3 * time.Second})
		p, ok := extdb.AsProblem(err)
		if !ok || p.Kind != c.kind || !strings.Contains(p.Message, c.text) {
			t.Errorf("Inspect(%s, %q) = %v, want %s naming %q", extdb.MaskURL(c.url), c.schema, err, c.kind, c.text)
		}
		if ok && strings.Contains(p.Message, "hunter2x") {
			t.Errorf("a problem message shows the password: %s", p.Message)
		}
	}
}

func exec(t *testing.T, dbURL, stmts string) {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}

func TestInspectReadsTheCatalogOfARealLookingSchema(t *testing.T) {
	t.Parallel()
	u := testpg.NewDatabase(t)
	script, err := os.ReadFile("testdata/app.sql")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, u, string(script))
	cat, err := extdb.Inspect(context.Background(), u, "shop", extdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cat.Enums["shop.order_status"] == nil || len(cat.Relations) != 15 {
		t.Fatalf("catalog: %d relations, enums %v", len(cat.Relations), cat.Enums)
	}
	in := introspect.Read(cat)
	if p := schema.Validate(in.Document); len(p) > 0 {
		t.Fatalf("the introspected document is invalid: %v", p)
	}
	var served []string
	for _, tb := range in.Document.Tables {
		served = append(served, tb.Name)
	}
	if got := strings.Join(served, ","); got != "customers,orders,products,referrals,reviews,settings,shipments" {
		t.Fatalf("served tables = %s", got)
	}
	orders, _ := in.Document.Table("orders")
	status, _ := orders.Column("status")
	total, _ := orders.Column("total")
	if status.Type != schema.TypeEnum || status.PGType != "shop.order_status" || strings.Join(status.Values, ",") != "pending,paid,shipped,cancelled" ||
		string(status.Default) != `"pending"` || total.Type != schema.TypeDecimal || orders.IDType != schema.IDUUID {
		t.Fatalf("orders = %+v", orders)
	}
	if _, err := schema.Compile(in.Document); err != nil {
		t.Fatalf("the introspected document does not compile: %v", err)
	}
}

func TestPoolsShareOnePoolPerDatabaseWithItsLimitsAndSessionSettings(t *testing.T) {
	t.Parallel()
	u := testpg.NewDatabase(t)
	pools := &extdb.Pools{MaxOpenConns: 2}
	t.Cleanup(pools.Close)
	a, err := pools.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pools.Get(u)
	if a != b {
		t.Fatal("two pools for one database")
	}
	if h := a.Health(); h.State != extdb.StateUnknown {
		t.Fatalf("health before any connection = %+v", h)
	}
	var tz, timeout, app string
	if err := a.DB.QueryRow(`SELECT current_setting('TimeZone'), current_setting('statement_timeout'), current_setting('application_name')`).Scan(&tz, &timeout, &app); err != nil {
		t.Fatal(err)
	}
	if tz != "UTC" || timeout != "30s" || app != "tablesmith" {
		t.Fatalf("session: TimeZone %s, statement_timeout %s, application_name %s", tz, timeout, app)
	}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.DB.Exec(`SELECT pg_sleep(0.1)`); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if st := a.DB.Stats(); st.MaxOpenConnections != 2 || st.WaitCount == 0 {
		t.Fatalf("pool stats = %+v: the limit did not hold", st)
	}
	if h := a.Health(); h.State != extdb.StateUp {
		t.Fatalf("health after use = %+v", h)
	}
	pools.Close()
	if _, err := pools.Get(u); !errors.Is(err, extdb.ErrClosed) {
		t.Fatalf("Get after Close = %v", err)
	}
}

func TestAPoolFailsFastWhileItsDatabaseIsAwayAndRecoversByItself(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse(testpg.NewDatabase(t))
	px := testproxy.Start(t, u.Host)
	u.Host = px.Addr
	pools := &extdb.Pools{RetryInterval: 300 * time.Millisecond}
	t.Cleanup(pools.Close)
	pool, err := pools.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	ping := func() error {
		var one int
		return pool.DB.QueryRow(`SELECT 1`).Scan(&one)
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}

	px.Stop()
	err = ping()
	if err == nil {
		t.Fatal("a query through a stopped proxy succeeded")
	}
	start := time.Now()
	err = ping()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeUnavailable {
		t.Fatalf("while down: %v, want a 503 envelope error", err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("a request while the database is known to be down took %s", took)
	}
	if h := pool.Health(); h.State != extdb.StateDown || !strings.Contains(h.Problem, "connection refused") || h.Since == nil {
		t.Fatalf("health while down = %+v", h)
	}

	px.Restart(t)
	// The background probe notices without any request.
	deadline := time.Now().Add(5 * time.Second)
	for pool.Health().State != extdb.StateUp {
		if time.Now().After(deadline) {
			t.Fatalf("health did not recover: %+v", pool.Health())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := ping(); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}
