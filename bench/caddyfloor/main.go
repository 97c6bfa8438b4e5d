// Command caddyfloor is the floor of bench/caddy-floor.sh: a net/http
// server that answers every request with the same small JSON envelope, the
// size of a GET by id's, so that what Caddy's routing and request handling
// cost on top of Go's HTTP server can be measured with nothing else in the
// way.
package main

import (
	"flag"
	"log"
	"net/http"
)

// Body is the answer of every server in the comparison.
const Body = `{"success":true,"data":{"id":5,"email":"user.5@example.com","name":"Femi Smith 5","age":31,"is_active":true,` +
	`"created_at":"2026-11-23T02:11:11.439825Z","updated_at":"2026-11-23T02:11:11.439825Z"},"message":"Record retrieved successfully"}`

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	body := []byte(Body)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})))
}
