// Package ratelimit counts generated-API requests per project against the
// owning account's plan, with ulule/limiter's fixed-window stores called
// directly: in memory on one node, in Redis when several nodes must share
// one count, and back in memory while Redis is unreachable.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/common"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/tablesmith/tablesmith/internal/plans"
)

// Config is what a Limiter is built from; zero values take the defaults.
type Config struct {
	// RedisURL, when set, makes every node share one count per project.
	RedisURL string
	// Prefix starts every key in the store (default "tablesmith:rl").
	Prefix string
	// Window is the length of the fixed window that a plan's hourly
	// request count applies to (default one hour; tests shorten it).
	Window time.Duration
	// Plans tells each project's plan (required): the limiter asks it on
	// every request, and it keeps the owners cached and the plans current.
	Plans *plans.Resolver
	// RedisTimeout bounds each Redis command (default 500ms).
	RedisTimeout time.Duration
	// ProbeEvery is how often an unreachable Redis is tried again
	// (default 2s).
	ProbeEvery time.Duration
	Logger     *slog.Logger
	Now        func() time.Time
}

// Decision is the outcome of counting one request.
type Decision struct {
	Allowed bool
	Plan    plans.Plan
	// Limit is the plan's count per window; -1 when unlimited.
	Limit     int64
	Remaining int64
	// Used is how many requests the window has counted, at most Limit.
	Used int64
	// Reset is when the window ends.
	Reset time.Time
}

// Message explains a rejection: the plan, its limit, and when it resets.
func (d Decision) Message(now time.Time, window time.Duration) string {
	wait := d.Reset.Sub(now).Round(time.Second)
	if wait < time.Second {
		wait = time.Second
	}
	return fmt.Sprintf("Rate limit exceeded: the %s plan allows %d requests per %s per project; the limit resets at %s (in %s)",
		d.Plan.Name, d.Limit, windowName(window), d.Reset.UTC().Format(time.RFC3339), wait)
}

func windowName(w time.Duration) string {
	if w == time.Hour {
		return "hour"
	}
	return w.String()
}

// Stats are the limiter's counters since it was made.
type Stats struct {
	Allowed  uint64
	Rejected uint64
	// RedisConfigured says whether counts are meant to be shared.
	RedisConfigured bool
	// RedisUp says whether Redis answers now.
	RedisUp bool
	// RedisErrors counts failed Redis commands.
	RedisErrors uint64
	// FallbackDecisions counts requests counted in memory because Redis
	// was configured but unreachable.
	FallbackDecisions uint64
}

// Limiter applies the plans' rate limits; safe for concurrent use.
type Limiter struct {
	cfg Config
	// local counts on this node, keyed by project id: without Redis, and
	// while Redis is unreachable.
	local localCounts

	client   *redis.Client
	shared   atomic.Pointer[limiter.Store]
	up       atomic.Bool
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	allowed, rejected, redisErrors, fallbacks atomic.Uint64
}

// New builds a limiter without touching the network.
func New(cfg Config) (*Limiter, error) {
	if cfg.Plans == nil {
		return nil, errors.New("ratelimit: Plans is required")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "tablesmith:rl"
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Hour
	}
	if cfg.RedisTimeout <= 0 {
		cfg.RedisTimeout = 500 * time.Millisecond
	}
	if cfg.ProbeEvery <= 0 {
		cfg.ProbeEvery = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := &Limiter{
		cfg:  cfg,
		stop: make(chan struct{}),
	}
	if cfg.RedisURL != "" {
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return nil, redisURLError(err)
		}
		opt.DialTimeout = cfg.RedisTimeout
		opt.ReadTimeout = cfg.RedisTimeout
		opt.WriteTimeout = cfg.RedisTimeout
		opt.PoolTimeout = cfg.RedisTimeout
		opt.MaxRetries = 1
		opt.DialerRetries = 1
		opt.DisableIdentity = true
		opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
		l.client = redis.NewClient(opt)
		quietRedisLog.Do(func() { redis.SetLogger(redisLog{cfg.Logger}) })
	}
	return l, nil
}

// quietRedisLog routes go-redis's own messages, which would otherwise go
// to stderr on every failed dial, to the service's log at debug level:
// the limiter reports Redis outages itself, once per outage.
var quietRedisLog sync.Once

type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.Debug(fmt.Sprintf(format, v...), "component", "go-redis")
}

// Start connects to Redis, if configured, and keeps trying in the
// background while it is unreachable. It never fails: without Redis the
// limiter counts in memory and says so. It also starts the sweep of
// ended windows in memory.
func (l *Limiter) Start(ctx context.Context) {
	l.wg.Add(1)
	go l.every(time.Minute, l.sweepLocal)
	if l.client == nil {
		return
	}
	if err := l.connect(ctx); err != nil {
		l.redisErrors.Add(1)
		l.cfg.Logger.Warn("rate limits: Redis is unreachable; counting on this node only until it answers",
			"redis", redactURL(l.cfg.RedisURL), "err", err)
	} else {
		l.cfg.Logger.Info("rate limits: counting in Redis, shared by every node", "redis", redactURL(l.cfg.RedisURL))
	}
	l.wg.Add(1)
	go l.every(l.cfg.ProbeEvery, l.probe)
}

// Close stops the probe and closes the Redis client.
func (l *Limiter) Close() {
	l.stopOnce.Do(func() { close(l.stop) })
	l.wg.Wait()
	if l.client != nil {
		l.client.Close()
	}
}

func (l *Limiter) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*l.cfg.RedisTimeout)
	defer cancel()
	if err := l.client.Ping(ctx).Err(); err != nil {
		return err
	}
	if l.shared.Load() == nil {
		// Loads the Lua scripts, so it needs Redis up.
		st, err := redisstore.NewStoreWithOptions(l.client, limiter.StoreOptions{Prefix: l.cfg.Prefix})
		if err != nil {
			return err
		}
		l.shared.Store(&st)
	}
	l.up.Store(true)
	return nil
}

// every runs f every d until Close; Start runs it on a goroutine of the
// limiter's wait group.
func (l *Limiter) every(d time.Duration, f func()) {
	defer l.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// sweepLocal drops ended windows from memory.
func (l *Limiter) sweepLocal() { l.local.sweep(l.cfg.Now()) }

// probe tries an unreachable Redis again.
func (l *Limiter) probe() {
	if l.up.Load() {
		return
	}
	if err := l.connect(context.Background()); err == nil {
		l.cfg.Logger.Info("rate limits: Redis answers again; counts are shared by every node", "redis", redactURL(l.cfg.RedisURL))
	}
}

// redisFailed switches to the memory store until the probe sees Redis
// again; the log says so once per outage.
func (l *Limiter) redisFailed(err error) {
	l.redisErrors.Add(1)
	if l.up.CompareAndSwap(true, false) {
		l.cfg.Logger.Warn("rate limits: Redis failed; counting on this node only until it answers",
			"redis", redactURL(l.cfg.RedisURL), "err", err)
	}
}

// Take counts one request of a project that arrived at now and decides
// whether it may pass. now is the caller's clock reading (the request's
// start): on a request this cheap every reading of the clock shows.
func (l *Limiter) Take(ctx context.Context, projectID string, now time.Time) (Decision, error) {
	return l.TakeN(ctx, projectID, 1, now)
}

// TakeN counts n requests of a project at once, as a bulk create of n
// records counts, and decides whether the last of them may pass.
func (l *Limiter) TakeN(ctx context.Context, projectID string, n int64, now time.Time) (Decision, error) {
	d, err := l.decide(ctx, projectID, n, now)
	if err != nil {
		return d, err
	}
	if d.Allowed {
		l.allowed.Add(1)
	} else {
		l.rejected.Add(1)
	}
	return d, nil
}

// Peek reports a project's window without counting a request (the usage
// meter). A project's plan alone is the plans.Resolver's to tell.
func (l *Limiter) Peek(ctx context.Context, projectID string) (Decision, error) {
	return l.decide(ctx, projectID, 0, l.cfg.Now())
}

// decide reads the clock once, for both the owner's expiry and the
// window; it counts n requests (0: none, a peek).
func (l *Limiter) decide(ctx context.Context, projectID string, n int64, now time.Time) (Decision, error) {
	plan, err := l.planAt(ctx, projectID, now)
	if err != nil {
		return Decision{}, err
	}
	rate := limiter.Rate{Period: l.cfg.Window, Limit: plan.RatePerHour}
	if plan.RatePerHour < 0 {
		// Unlimited projects are counted too, for the usage meter.
		rate.Limit = math.MaxInt64
	}
	c, err := l.count(ctx, projectID, rate, n, now)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Allowed: !c.Reached, Plan: plan, Limit: c.Limit, Remaining: c.Remaining,
		Used: c.Limit - c.Remaining, Reset: time.Unix(c.Reset, 0)}
	if plan.RatePerHour < 0 {
		d.Allowed, d.Limit, d.Remaining = true, -1, -1
	}
	return d, nil
}

// count runs one store operation on Redis when it is up, else in memory:
// it adds n requests to the window (0: only reads it).
func (l *Limiter) count(ctx context.Context, projectID string, rate limiter.Rate, n int64, now time.Time) (limiter.Context, error) {
	if l.client != nil {
		if st := l.shared.Load(); st != nil && l.up.Load() {
			key := "p:" + projectID
			rctx, cancel := context.WithTimeout(ctx, l.cfg.RedisTimeout)
			var c limiter.Context
			var err error
			switch {
			case n == 1:
				c, err = (*st).Get(rctx, key, rate)
			case n > 1:
				c, err = (*st).Increment(rctx, key, n, rate)
			default:
				c, err = (*st).Peek(rctx, key, rate)
			}
			cancel()
			if err == nil {
				return c, nil
			}
			if ctx.Err() != nil {
				// The client went away; Redis is not to blame.
				return c, ctx.Err()
			}
			l.redisFailed(err)
		}
		l.fallbacks.Add(1)
	}
	return l.countInMemory(projectID, rate, n, now), nil
}

// countInMemory is what ulule's memory store does in Get (increment) and
// Peek, on this node's windows.
func (l *Limiter) countInMemory(projectID string, rate limiter.Rate, n int64, now time.Time) limiter.Context {
	var count int64
	var expires time.Time
	if n > 0 {
		count, expires = l.local.increment(projectID, rate.Period, n, now)
	} else {
		count, expires = l.local.get(projectID, rate.Period, now)
	}
	return common.GetContextFromState(now, rate, expires, count)
}

func (l *Limiter) planAt(ctx context.Context, projectID string, now time.Time) (plans.Plan, error) {
	return l.cfg.Plans.Plan(ctx, projectID, now)
}

// Window is the length of the fixed window.
func (l *Limiter) Window() time.Duration { return l.cfg.Window }

// Stats returns the counters.
func (l *Limiter) Stats() Stats {
	return Stats{Allowed: l.allowed.Load(), Rejected: l.rejected.Load(), RedisConfigured: l.client != nil,
		RedisUp: l.client != nil && l.up.Load(), RedisErrors: l.redisErrors.Load(), FallbackDecisions: l.fallbacks.Load()}
}

func redactURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	return "(unparsable URL)"
}

// redisURLError says what is wrong with redis_url without repeating it:
// url.Parse's errors quote the whole URL, password included, so only
// the inner reason is kept.
func redisURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("redis_url is not a valid Redis URL (redis://[user:password@]host:port[/db] or rediss://...): %s",
		strings.TrimPrefix(err.Error(), "redis: "))
}
