// Command testoidc serves a real OpenID provider (zitadel's op, through
// internal/testoidc) for browser tests: one client and any number of
// users from flags, an http issuer on a loopback address.
//
//	go run ./tools/testoidc -addr 127.0.0.1:9998 \
//		-client 'tablesmith-app:secret:http://localhost:8080/v1/<p>/auth/providers/corp/callback' \
//		-user 'ann:pw-ann:ann@example.com' -user 'bob:pw-bob:bob@example.com:unverified'
//
// It prints "ready <issuer>" once it listens. Clients are fixed at start,
// so a fixture that needs the project id in the redirect URI starts the
// provider after creating the project.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/tablesmith/tablesmith/internal/testoidc"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	addr := flag.String("addr", "127.0.0.1:9998", "address to listen on")
	var clients, users list
	flag.Var(&clients, "client", "id:secret:redirect_uri (repeatable)")
	flag.Var(&users, "user", "username:password:email[:unverified] (repeatable)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	p, err := testoidc.New(issuer)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range clients {
		parts := strings.SplitN(c, ":", 3)
		if len(parts) != 3 {
			log.Fatalf("-client %q: want id:secret:redirect_uri", c)
		}
		p.AddClient(testoidc.Client{ID: parts[0], Secret: parts[1], RedirectURIs: []string{parts[2]}})
	}
	for _, u := range users {
		parts := strings.Split(u, ":")
		if len(parts) < 3 {
			log.Fatalf("-user %q: want username:password:email[:unverified]", u)
		}
		verified := len(parts) < 4 || parts[3] != "unverified"
		p.AddUser(testoidc.User{ID: "u-" + parts[0], Username: parts[0], Password: parts[1], Email: parts[2], EmailVerified: verified})
	}
	fmt.Fprintln(os.Stdout, "ready", issuer)
	log.Fatal(http.Serve(ln, p.Handler))
}
