package edgecache

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Remote purges HTTP caches in front of the nodes (Varnish with xkey, a
// CDN's purge endpoint) by surrogate key: a PURGE request to each URL
// with the keys in a Surrogate-Key header, space separated (the purge_url
// option, docs/edge-cache.md). Purges are sent in the background, keys
// that pile up meanwhile together, so a write never waits for a cache
// that may be far away or down.
type Remote struct {
	urls   []string
	client *http.Client
	log    *slog.Logger

	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
}

// Bounds of a purge request: the keys of one request, how long each
// try may take, and how long to wait before the one retry.
const (
	remoteBatch   = 256
	remoteTimeout = 2 * time.Second
	remoteRetry   = 200 * time.Millisecond
)

// NewRemote purges the caches at urls; nil when there are none.
func NewRemote(urls []string, log *slog.Logger) *Remote {
	if len(urls) == 0 {
		return nil
	}
	return &Remote{urls: urls, log: log, pending: map[string]bool{}, wake: make(chan struct{}, 1),
		client: &http.Client{Timeout: remoteTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Purge asks the caches to drop the answers that read one of tables of
// the project (every answer of the project when tables is empty).
func (r *Remote) Purge(projectID string, tables []string) {
	r.mu.Lock()
	for _, k := range Keys(projectID, tables) {
		r.pending[k] = true
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // a send is already due
	}
}

// Run sends what is pending until ctx ends.
func (r *Remote) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		r.mu.Lock()
		keys := make([]string, 0, len(r.pending))
		for k := range r.pending {
			keys = append(keys, k)
		}
		r.pending = map[string]bool{}
		r.mu.Unlock()
		for len(keys) > 0 {
			n := min(len(keys), remoteBatch)
			r.send(ctx, strings.Join(keys[:n], " "))
			keys = keys[n:]
		}
	}
}

// send purges keys at every URL, trying each once more after a failure.
func (r *Remote) send(ctx context.Context, keys string) {
	for _, u := range r.urls {
		err := r.try(ctx, u, keys)
		if err != nil && ctx.Err() == nil {
			time.Sleep(remoteRetry)
			err = r.try(ctx, u, keys)
		}
		if err != nil {
			// The cache keeps those answers until their max-age.
			r.log.Warn("purge an HTTP cache in front", "url", u, "keys", keys, "err", err)
		}
	}
}

func (r *Remote) try(ctx context.Context, url, keys string) error {
	req, err := http.NewRequestWithContext(ctx, "PURGE", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Surrogate-Key", keys)
	res, err := r.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("answered %s", res.Status)
	}
	return nil
}
