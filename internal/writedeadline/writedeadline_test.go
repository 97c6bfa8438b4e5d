package writedeadline_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/writedeadline"
)

// A server whose write timeout passes while a request works: the answer
// reaches the client when the handler takes its own deadline, and the
// connection drops when it does not.
func TestASlowAnswerOutlivesTheServersWriteTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap bool
	}{{"own deadline", true}, {"server's deadline", false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				start := time.Now()
				if tc.wrap {
					w = &writedeadline.Writer{ResponseWriter: w, Start: start}
				}
				time.Sleep(writedeadline.Slow + 300*time.Millisecond) // the work
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, strings.Repeat("done ", 100))
			}))
			srv.Config.WriteTimeout = 500 * time.Millisecond
			srv.Start()
			defer srv.Close()
			res, err := http.Get(srv.URL)
			if !tc.wrap {
				if err == nil {
					res.Body.Close()
					t.Fatalf("the control answered (%d) past the write timeout: the test proves nothing", res.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("answer after the work: %v", err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !strings.HasPrefix(string(body), "done") {
				t.Fatalf("%d %q", res.StatusCode, body)
			}
		})
	}
}
