// Command caddy is Caddy with its standard modules and Tablesmith, the
// same binary xcaddy.sh builds; make run and the tests use it.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/tablesmith/tablesmith/caddymodule"
)

func main() {
	caddycmd.Main()
}
