package realtime

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/internal/writedeadline"
)

// sseWriter writes Server-Sent Events; the first write error is kept and
// ends the stream (the client has gone).
type sseWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	buf    []byte
	failed error
}

// newSSEWriter starts the answer: 200 with the event-stream headers, the
// client's reconnection delay, and a first comment so that the client
// knows the stream is open (and every change after this is sent).
func newSSEWriter(w http.ResponseWriter, projectID string) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx in front: do not buffer
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	s.retry(2 * time.Second)
	s.comment("connected to " + projectID)
	s.flush()
	return s
}

// event writes one event; id < 0 writes none.
func (s *sseWriter) event(id int64, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		s.failed = err
		return
	}
	if id >= 0 {
		s.buf = append(s.buf, "id: "...)
		s.buf = strconv.AppendInt(s.buf, id, 10)
		s.buf = append(s.buf, '\n')
	}
	s.buf = append(s.buf, "event: "...)
	s.buf = append(s.buf, name...)
	// json.Marshal never writes a raw newline, so the data is one line.
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, b...)
	s.buf = append(s.buf, "\n\n"...)
}

// retry sets the client's reconnection delay.
func (s *sseWriter) retry(d time.Duration) {
	s.buf = append(s.buf, "retry: "...)
	s.buf = strconv.AppendInt(s.buf, d.Milliseconds(), 10)
	s.buf = append(s.buf, '\n')
}

func (s *sseWriter) comment(text string) {
	s.buf = append(s.buf, ": "...)
	s.buf = append(s.buf, text...)
	s.buf = append(s.buf, "\n\n"...)
}

// flush sends what is buffered.
func (s *sseWriter) flush() {
	if s.failed != nil || len(s.buf) == 0 {
		return
	}
	// A stream outlives the server's write timeout.
	writedeadline.Renew(s.rc)
	if _, err := s.w.Write(s.buf); err != nil {
		s.failed = err
		return
	}
	s.buf = s.buf[:0]
	if err := s.rc.Flush(); err != nil {
		s.failed = err
	}
}
