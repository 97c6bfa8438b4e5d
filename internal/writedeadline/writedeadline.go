// Package writedeadline keeps a slow request's answer clear of the
// server's write timeout. Caddyfile.example bounds an answer with Caddy's
// `write` timeout, counted by net/http from the end of the request's
// headers, so a request whose work is long by nature (a generate that
// converts a big table, a long statement of a plan that allows one) would
// find the deadline gone by the time it answers, and the client would see
// the connection drop after the work was done. Such an answer, and every
// write of a stream or an export, gets Grace from the moment it is written
// instead.
package writedeadline

import (
	"net/http"
	"time"
)

// Grace is how long one write may wait on a client that stopped reading.
const Grace = 30 * time.Second

// Slow is how long a request runs before its answer gets a deadline of
// its own; quicker ones keep the server's, at no cost.
const Slow = time.Second

// Renew gives the next writes through rc Grace from now: streams and
// exports call it before each write, as their progress is what bounds them.
func Renew(rc *http.ResponseController) {
	_ = rc.SetWriteDeadline(time.Now().Add(Grace))
}

// ForAnswer is called as a request starts its answer: when the request
// began (start) more than Slow ago, its answer gets Grace from now.
func ForAnswer(w http.ResponseWriter, start time.Time) {
	if time.Since(start) > Slow {
		Renew(http.NewResponseController(w))
	}
}

// Writer calls ForAnswer as the answer starts, for handlers that write
// through many paths.
type Writer struct {
	http.ResponseWriter
	Start   time.Time
	started bool
}

// WriteHeader implements http.ResponseWriter.
func (w *Writer) WriteHeader(code int) {
	w.answering()
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *Writer) Write(b []byte) (int, error) {
	w.answering()
	return w.ResponseWriter.Write(b)
}

func (w *Writer) answering() {
	if !w.started {
		w.started = true
		ForAnswer(w.ResponseWriter, w.Start)
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
