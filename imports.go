// Package tablesmith is the module root: importing it registers every
// Tablesmith Caddy module, so `xcaddy build --with github.com/tablesmith/tablesmith`
// brings them all.
package tablesmith

import _ "github.com/tablesmith/tablesmith/caddymodule"
