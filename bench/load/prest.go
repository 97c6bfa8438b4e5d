package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tablesmith/tablesmith/schema"
)

// pREST (github.com/prest/prest, Go on PostgreSQL) is the peer of issue
// 38.5: another server that answers REST from a PostgreSQL schema, loaded
// in the same run on the same table. Nothing of it is in this repository;
// -prest names a prestd binary built from its source (bench/RESULTS.md
// says how). It runs as its documentation recommends for production:
// JWT (HS256) checked on every request, a pool of the same size as the
// other servers with as many idle connections kept (its default of no
// idle connection would open one per request and prepare every
// statement anew), its statement cache on, no response cache.

// startPrest starts prestd on the benchmark database.
func (b *bench) startPrest() error {
	if b.c.prest == "" {
		return nil
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	key := hex.EncodeToString(secret)
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": "bench", "iat": time.Now().Unix(), "exp": time.Now().Add(24 * time.Hour).Unix(),
	}).SignedString([]byte(key))
	if err != nil {
		return err
	}
	u, err := url.Parse(b.dbURL)
	if err != nil {
		return err
	}
	addr := freeAddr()
	host, port, _ := strings.Cut(addr, ":")
	pool := strconv.Itoa(b.c.poolSize())
	env := []string{
		"PREST_CONF=" + b.tmp + "/prest-none.toml", // no file: environment only
		"PREST_PG_URL=" + u.String(),
		"PREST_PG_MAXOPENCONN=" + pool, "PREST_PG_MAXIDLECONN=" + pool,
		"PREST_PG_CACHE=true", "PREST_CACHE_ENABLED=false",
		"PREST_HTTP_HOST=" + host, "PREST_HTTP_PORT=" + port,
		"PREST_JWT_DEFAULT=true", "PREST_JWT_KEY=" + key, "PREST_JWT_ALGO=HS256",
		"PREST_DEBUG=false", "PREST_STUDIO_ENABLED=false", "PREST_LOG_LEVEL=error",
	}
	p, _, err := start("prest", b.tmp, env, 0, b.c.prest)
	if err != nil {
		return err
	}
	b.prest, b.prestAddr, b.prestToken = p, addr, token
	// Without a token it answers 401 once it listens.
	return waitHTTP("http://"+addr+b.prestPrefix()+"/users?id=1", 401, p, time.Minute)
}

// prestPrefix is the path pREST serves the main project's tables under:
// /<database>/<schema>.
func (b *bench) prestPrefix() string {
	u, _ := url.Parse(b.dbURL)
	return u.Path + "/" + schema.ProjectSchema(b.projects["main"].id)
}

// prestTarget is pREST serving the main project's schema.
func (b *bench) prestTarget() target {
	return target{name: "prest", addr: b.prestAddr, prefix: b.prestPrefix(), key: b.prestToken, pid: b.prest.pid()}
}

// checkPrest compares pREST's answer with the module's: pREST answers a
// JSON array of rows where the module answers {"data": ...}, one record
// for a GET by id. A difference is reported, never fatal.
func (bn *bench) checkPrest(hc headlineCase, m, p target) []string {
	if hc.module.method != "GET" {
		return nil
	}
	sm, bodyM, errM := probe(m, hc.module)
	sp, bodyP, errP := probe(p, hc.prest)
	if errM != nil || errP != nil || sm != 200 || sp != 200 {
		return []string{fmt.Sprintf("   ! %s: %s answered %d %v %.200s; %s answered %d %v %.200s\n",
			hc.module.name, m.name, sm, errM, bodyM, p.name, sp, errP, bodyP)}
	}
	var am struct {
		Data any `json:"data"`
	}
	var rows []any
	if err := json.Unmarshal([]byte(bodyM), &am); err != nil {
		return []string{fmt.Sprintf("   ! %s: %s: %v\n", hc.module.name, m.name, err)}
	}
	if err := json.Unmarshal([]byte(bodyP), &rows); err != nil {
		return []string{fmt.Sprintf("   ! %s: %s: %v\n", hc.module.name, p.name, err)}
	}
	if _, one := am.Data.(map[string]any); one {
		if len(rows) != 1 {
			return []string{fmt.Sprintf("   ! %s: %s answered %d rows for one id\n", hc.module.name, p.name, len(rows))}
		}
		if !sameValues(am.Data, rows[0]) {
			return []string{fmt.Sprintf("   ! %s: %s and %s answer different data:\n     %.300s\n     %.300s\n", hc.module.name, m.name, p.name, bodyM, bodyP)}
		}
		return nil
	}
	if line := compareIDs(am.Data, rows); line != "" {
		return []string{fmt.Sprintf("   %s, %s vs %s: %s\n", hc.module.name, m.name, p.name, line)}
	}
	return nil
}

// sameValues compares two records field by field, timestamps by the
// instant they name (the module writes UTC with Z, pREST PostgreSQL's
// JSON with an offset).
func sameValues(a, b any) bool {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB || len(ma) != len(mb) {
		return false
	}
	for k, va := range ma {
		vb, ok := mb[k]
		if !ok {
			return false
		}
		if reflect.DeepEqual(va, vb) {
			continue
		}
		sa, okA := va.(string)
		sb, okB := vb.(string)
		if !okA || !okB {
			return false
		}
		ta, errA := time.Parse(time.RFC3339Nano, sa)
		tb, errB := time.Parse(time.RFC3339Nano, sb)
		if errA != nil || errB != nil || !ta.Equal(tb) {
			return false
		}
	}
	return true
}

// prestNote says how pREST ran, for the report.
func (b *bench) prestNote() string {
	if b.prest == nil {
		return "not loaded (-prest names a prestd binary; bench/RESULTS.md says how to build one)"
	}
	return fmt.Sprintf("%s as /<database>/<schema>/<table> with a JWT (HS256) per request, pool of %d with as many kept idle, statement cache on, "+
		"its request log to a file (it always logs); it answers a bare JSON array, counts no rows and has no nested include, so it loads only the rows with an equivalent", b.c.prest, b.c.poolSize())
}
