package requestlog

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/internal/batchqueue"
)

// Defaults of Config.
const (
	DefaultBuffer     = 8192
	DefaultFlushEvery = time.Second
	DefaultPruneEvery = time.Minute
	// MaxRowsPerProject bounds a project's log whatever its plan: a busy
	// project keeps its newest rows, so the log's storage stays bounded
	// on plans without a rate limit.
	MaxRowsPerProject = 100_000
	// DefaultRetention is the retention of a plan that sets none (the
	// free plan's).
	DefaultRetention = 24 * time.Hour
)

// Config tunes a Log; zero values take the defaults.
type Config struct {
	DB *sql.DB
	// Retention returns how long each plan, by name, keeps its projects'
	// entries, and the retention of a plan not in the map. Read on every
	// retention pass, so a configuration reload applies.
	Retention func() (byPlan map[string]time.Duration, other time.Duration)
	// Buffer is how many entries may wait for the writer before new ones
	// are dropped and counted.
	Buffer     int
	FlushEvery time.Duration
	// PruneEvery is how often the retention pass runs; <0 turns it off.
	PruneEvery time.Duration
	// MaxRows is the per-project row cap (default MaxRowsPerProject).
	MaxRows int
	Logger  *slog.Logger
	Now     func() time.Time
}

// Stats are a Log's counters since it was made.
type Stats struct {
	Recorded uint64 // entries accepted
	Dropped  uint64 // entries dropped because the buffer was full
	Written  uint64 // entries in PostgreSQL
	Lost     uint64 // entries given up after a failed write
}

// Log takes entries from request goroutines and writes them in batches.
type Log struct {
	cfg                Config
	*batchqueue.Runner // Start, Flush, Close
	queue              *batchqueue.Queue[Entry]

	dropped, written, lost atomic.Uint64

	// sinceCap counts each project's rows written since its row cap was
	// last enforced (the writer's goroutine and the pruner's share it).
	capMu    sync.Mutex
	sinceCap map[string]int
	// swept is when the pruner last deleted orphans (its goroutine's).
	swept time.Time
}

// New returns a log; Start begins writing.
func New(cfg Config) *Log {
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = DefaultFlushEvery
	}
	if cfg.PruneEvery == 0 {
		cfg.PruneEvery = DefaultPruneEvery
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = MaxRowsPerProject
	}
	if cfg.Retention == nil {
		cfg.Retention = func() (map[string]time.Duration, time.Duration) { return nil, DefaultRetention }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Log{cfg: cfg, Runner: batchqueue.NewRunner(), queue: batchqueue.New[Entry](cfg.Buffer),
		sinceCap: map[string]int{}}
}

// Record queues an entry, or drops and counts it when the buffer is full.
// It never blocks: a slow database costs the log entries, never requests.
func (l *Log) Record(e Entry) {
	if !l.queue.Push(e) {
		l.dropped.Add(1)
	}
}

// Stats returns the counters.
func (l *Log) Stats() Stats {
	return Stats{Recorded: l.queue.Accepted(), Dropped: l.dropped.Load(), Written: l.written.Load(), Lost: l.lost.Load()}
}

// Start runs the writer and the retention pass until Close; Flush writes
// every entry recorded so far and returns when they are in PostgreSQL;
// Close writes what is pending and stops.
func (l *Log) Start() {
	loops := []func(){l.writeLoop}
	if l.cfg.PruneEvery > 0 {
		loops = append(loops, l.pruneLoop)
	}
	l.Runner.Start(loops...)
}

// writeLoop writes what waits every FlushEvery. A batch that fails is
// given up and counted: a log is worth less than the memory of a node
// whose database is away, and analytics keeps the counts.
func (l *Log) writeLoop() {
	tick := time.NewTicker(l.cfg.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			_ = l.writeQueued(30 * time.Second) // logged and counted there
		case reply := <-l.FlushRequests():
			reply <- l.writeQueued(30 * time.Second)
		case <-l.Stopping():
			_ = l.writeQueued(5 * time.Second) // shutdown does not hang on a dead database
			return
		}
	}
}

func (l *Log) writeQueued(timeout time.Duration) error {
	entries := l.queue.Take(false)
	defer l.queue.Done(entries)
	if len(entries) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := insert(ctx, l.cfg.DB, entries); err != nil {
		l.lost.Add(uint64(len(entries)))
		l.cfg.Logger.Warn("request log: a batch was not written", "entries", len(entries), "err", err)
		return err
	}
	l.written.Add(uint64(len(entries)))
	l.capMu.Lock()
	for _, e := range entries {
		l.sinceCap[e.ProjectID]++
	}
	l.capMu.Unlock()
	return nil
}

func (l *Log) pruneLoop() {
	tick := time.NewTicker(l.cfg.PruneEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := l.Prune(ctx); err != nil {
				l.cfg.Logger.Warn("request log: retention pass failed", "err", err)
			}
			cancel()
		case <-l.Stopping():
			return
		}
	}
}

// Prune deletes entries older than their project's plan keeps them (and,
// hourly, those of deleted projects), and beyond the row cap for the projects that wrote enough since the cap was
// last enforced to pass it.
func (l *Log) Prune(ctx context.Context) error {
	byPlan, other := l.cfg.Retention()
	now := l.cfg.Now()
	sweep := now.Sub(l.swept) >= time.Hour
	if err := deleteExpired(ctx, l.cfg.DB, now, byPlan, other, sweep); err != nil {
		return err
	}
	if sweep {
		l.swept = now
	}
	for _, project := range l.dueForCap() {
		if err := deleteBeyondCap(ctx, l.cfg.DB, project, l.cfg.MaxRows); err != nil {
			return err
		}
	}
	return nil
}

// dueForCap returns the projects that wrote a tenth of the cap since it
// was last enforced on them, and starts their count again: below that a
// project cannot have passed the cap by more than a tenth.
func (l *Log) dueForCap() []string {
	l.capMu.Lock()
	defer l.capMu.Unlock()
	var due []string
	for p, n := range l.sinceCap {
		if n >= l.cfg.MaxRows/10 {
			due = append(due, p)
			delete(l.sinceCap, p)
		}
	}
	return due
}
