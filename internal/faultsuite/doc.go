// Package faultsuite holds only tests: the generated and platform APIs
// served by a real service whose PostgreSQL and Redis are reached through
// internal/testproxy, which then drops packets (blackhole), resets
// connections or slows them. Each test asserts the answers and an upper
// bound on how long they took.
package faultsuite
