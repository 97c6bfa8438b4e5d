package service

import (
	"context"
	"net/http"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
)

// ReadyTimeout bounds the control-database ping of GET /api/ready.
const ReadyTimeout = time.Second

// serveHealth answers the load balancer's two questions before anything
// else of the platform API runs (no session, no rate limit, served while
// the service is still starting):
//
//	GET /api/health  the process serves: always 200
//	GET /api/ready   the node is started, not stopping (Drain), and its
//	                 control database answers within ReadyTimeout: 200,
//	                 else 503 with the reason
//
// It reports whether it answered.
func (s *Service) serveHealth(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/api/health" && r.URL.Path != "/api/ready" {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		envelope.WriteError(w, apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed here; allowed: GET, HEAD", r.Method))
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == "/api/health" {
		envelope.OK(w, map[string]string{"status": "ok"})
		return true
	}
	if err := s.ready(r.Context()); err != nil {
		envelope.WriteError(w, err)
		return true
	}
	envelope.OK(w, map[string]string{"status": "ready"})
	return true
}

// ready says why the node cannot serve, or nil.
func (s *Service) ready(ctx context.Context) error {
	if s.platform.Load() == nil {
		return apierr.New(apierr.CodeUnavailable, "Starting")
	}
	if s.draining.Load() {
		return apierr.New(apierr.CodeUnavailable, "Shutting down")
	}
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	// The answer goes at ReadyTimeout: a ping on a database that stopped
	// answering ends a little later (pgpool.Overshoot), and finishes on
	// its own.
	pinged := make(chan error, 1)
	go func() { pinged <- s.DB.PingContext(ctx) }()
	var err error
	select {
	case err = <-pinged:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		msg := "The control database is unreachable"
		if ctx.Err() != nil {
			msg = "The control database did not answer within " + ReadyTimeout.String()
		}
		return &apierr.Error{Code: apierr.CodeUnavailable, Message: msg, Cause: err}
	}
	return nil
}

// writeStarting answers a platform request that comes before Start has
// finished.
func writeStarting(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	envelope.WriteError(w, apierr.New(apierr.CodeUnavailable, "Starting"))
}
