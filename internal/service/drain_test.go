package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// TestADrainingNodeHandsItsIndexBuildToAnotherNode: node a is in the
// middle of a background index build when it begins to stop; node b,
// which would look for builds nobody holds only once an hour, takes the
// build over at once (the NodeLeaving event) and finishes it.
func TestADrainingNodeHandsItsIndexBuildToAnotherNode(t *testing.T) {
	building := make(chan string, 1)
	release := make(chan struct{})
	a := testserver.New(t, testserver.WithConfig(func(c *service.Config) {
		c.IndexBuilds.BeforeBuild = func(name string) {
			select {
			case building <- name:
			default:
			}
			<-release
		}
	}))
	b := a.Beside(testserver.WithConfig(func(c *service.Config) { c.IndexPoll = time.Hour }))
	p := a.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	rows := make([]map[string]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"body": fmt.Sprintf("note %d", i)}
	}
	a.API(p, "POST", "/notes/bulk", rows).Must(t, 201)
	// An index on a table with rows is built after the generate, in the
	// background, by the builder of the node that generated.
	a.Publish(p.Session, p.ID, `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text", "index": true}]}]}`)
	select {
	case <-building:
	case <-time.After(30 * time.Second):
		t.Fatal("node a did not start the index build")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		a.Svc.Drain(ctx)
	}()
	for !a.Svc.Draining() {
		time.Sleep(time.Millisecond)
	}
	close(release) // the build goes on with its context cancelled, and stops
	<-drained
	st := &store.Store{DB: b.Svc.DB}
	// b's poll is an hour away: only the handoff makes it build. 30 s is
	// the margin for a loaded machine; the build itself takes milliseconds.
	deadline := time.Now().Add(30 * time.Second)
	for {
		all, err := st.IndexStatuses(context.Background(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		ready := len(all) > 0
		for _, v := range all {
			ready = ready && v.State == store.IndexReady
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index build was not finished by node b within 30 s of node a's handoff: %+v", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
