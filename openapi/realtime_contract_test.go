package openapi_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDocumentDescribesTheRealtimeStream opens the stream of a live
// project as the served document describes it (posts has realtime on in
// alltypes) and checks its refusals and its first bytes against it.
func TestDocumentDescribesTheRealtimeStream(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/realtime", k.p.Key, 400},              // no tables
		{"/realtime?tables=users", k.p.Key, 400}, // users has realtime off
		{"/realtime?tables=posts", "", 401},      // no credential
		{"/realtime?tables=posts&where[posts]=", "nope", 401},
	} {
		_, _, status, ans := k.send("GET", c.path, c.token, nil)
		if status != c.want {
			t.Errorf("GET %s: %d, want %d: %v", c.path, status, c.want, ans)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := func() *http.Request {
		r, err := http.NewRequestWithContext(ctx, "GET", k.s.URL+"/v1/"+k.p.ID+"/realtime?tables=posts&where[posts]="+
			"featured%20%3D%20true&access_token="+k.p.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Accept", "text/event-stream")
		return r
	}
	if ok, errs := k.v.ValidateHttpRequestSync(req()); !ok {
		t.Errorf("the document refuses a stream request the server takes: %s", describe(errs))
	}
	res, err := http.DefaultClient.Do(req())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("the stream answered %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// The stream never ends: validate the answer with what it sent first
	// (retry and the connected comment).
	br := bufio.NewReader(res.Body)
	var head bytes.Buffer
	for !strings.Contains(head.String(), ": connected to ") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before its first comment: %v (%q)", err, head.String())
		}
		head.WriteString(line)
	}
	first := &http.Response{StatusCode: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(head.Bytes())), Request: req()}
	if ok, errs := k.v.ValidateHttpResponse(req(), first); !ok {
		t.Errorf("the document does not describe the stream's answer: %s", describe(errs))
	}
}
