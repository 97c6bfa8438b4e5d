package service

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/events"
)

func TestReceivedEventsReachTheirAreaAndUnreadableOnesDropEveryCache(t *testing.T) {
	// New opens no connection, so no database is needed here.
	s, err := New(Config{DatabaseURL: "postgres://127.0.0.1:1/none?sslmode=disable", WithoutMetering: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var plans []int64
	dropped := 0
	events.On(&s.events, func(e events.PlanChanged) { plans = append(plans, e.AccountID) })
	s.onReconnect = append(s.onReconnect, func() { dropped++ })

	s.handleEvent("plan:7")
	if len(plans) != 1 || plans[0] != 7 || dropped != 0 {
		t.Fatalf("after plan:7: plans %v, caches dropped %d times; want [7] and 0", plans, dropped)
	}
	s.handleEvent("table:p_1.items") // a kind from a newer node
	if dropped != 0 {
		t.Errorf("an unknown kind dropped every cache")
	}
	s.handleEvent("plan:seven")
	if dropped != 1 || len(plans) != 1 {
		t.Errorf("after plan:seven: plans %v, caches dropped %d times; want [7] and 1", plans, dropped)
	}
}
