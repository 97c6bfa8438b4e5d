// Package schemafuzz holds only tests: it publishes random valid schema
// documents (names drawn from SQL keywords, one-letter names and the
// generated SQL's own aliases; every column type; realtime, auth,
// junction, owner and permission switches; references with each
// on_delete) through the platform API of a real service, sends random
// requests to every endpoint of the generated API, and checks that none
// answers 500, that every error is in the contract's envelope, and that
// the rows in PostgreSQL are what the acknowledged writes made them. A
// failing case is shrunk to a small schema and request list, printed as
// JSON for testdata/regressions. docs/testing.md says how to run it.
package schemafuzz
