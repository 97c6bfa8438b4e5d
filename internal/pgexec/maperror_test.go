package pgexec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/schema"
)

func TestARefusedValueIsTheQuerysFaultOnAReadAndTheBodysOnAWrite(t *testing.T) {
	db := onePool(t)
	ctx := context.Background()
	_, err := pgexec.JSON(ctx, db, `SELECT to_json($1::date)::text`, "0000-01-01")
	if err == nil {
		t.Fatal("PostgreSQL accepted the year 0")
	}
	table := &schema.CTable{Name: "events"}
	for op, want := range map[pgexec.Op]string{pgexec.OpRead: apierr.CodeInvalidQuery, pgexec.OpWrite: apierr.CodeValidation} {
		var e *apierr.Error
		if got := pgexec.MapError(err, table, op); !errors.As(got, &e) || e.Code != want {
			t.Errorf("op %d: MapError = %v, want %s", op, got, want)
		}
	}
}

func TestMapErrorLeavesAStatementTimeoutToApierrAs(t *testing.T) {
	db := onePool(t)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL statement_timeout = '20ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = pgexec.JSON(ctx, tx, `SELECT pg_sleep(5)::text`)
	mapped := pgexec.MapError(err, &schema.CTable{Name: "events"}, pgexec.OpRead)
	if mapped != err {
		t.Errorf("MapError changed a statement timeout: %v", mapped)
	}
	if e := apierr.As(mapped); e.Code != apierr.CodeUnavailable {
		t.Errorf("apierr.As(statement timeout) = %v, want SERVICE_UNAVAILABLE", e)
	}
}
