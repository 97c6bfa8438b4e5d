package schema

import "bytes"

// HasDefault reports whether a column's document default gives a value: a
// "default": null is no default (the column's DDL has none), so a
// required column with it must be given on create like one without.
func HasDefault(c *Column) bool {
	return len(c.Default) > 0 && !bytes.Equal(bytes.TrimSpace(c.Default), []byte("null"))
}

// DefaultSQL renders a column's document default as an SQL expression,
// the same text its DDL declares, or "" when it has none (a nullable
// column then defaults to NULL). A bulk create uses it for the items
// that leave out a column others name: one INSERT cannot say DEFAULT
// for some rows only.
func DefaultSQL(c *CColumn) string { return defaultLiteral(c.Column) }
