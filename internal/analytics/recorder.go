// Package analytics records every generated-API request without slowing
// it down, aggregates the requests into per-minute buckets with mergeable
// latency sketches, writes the buckets to PostgreSQL in batches, rolls them
// up into hours after a day, and answers the dashboard's usage queries.
package analytics

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/internal/batchqueue"
)

// Sample is one generated-API request.
type Sample struct {
	ProjectID  string
	Table      string
	Operation  string
	Method     string
	Credential string
	Status     int
	Latency    time.Duration
	At         time.Time
}

// Config tunes a Recorder; zero values take the defaults.
type Config struct {
	DB *sql.DB
	// Buffer is how many samples may wait for the aggregator before new
	// ones are dropped (default 16384).
	Buffer int
	// FoldEvery is how often the aggregator takes the samples waiting in
	// the buffer while they keep coming (default 20ms). It polls rather
	// than wait on the buffer: waking it for every sample cost each
	// request a futex call.
	FoldEvery time.Duration
	// FlushEvery is how often buckets are written (default 5s).
	FlushEvery time.Duration
	// CompactEvery is how often minute buckets older than a day are rolled
	// up and expired rows deleted (default 10m); <0 turns it off.
	CompactEvery time.Duration
	Logger       *slog.Logger
	Now          func() time.Time
}

// Stats are a Recorder's counters since it was made.
type Stats struct {
	Recorded    uint64 // samples accepted into the buffer
	Dropped     uint64 // samples dropped because the buffer was full
	Written     uint64 // samples whose buckets reached PostgreSQL
	FlushErrors uint64 // failed writes (their buckets are retried)
	Lost        uint64 // samples given up after repeated write failures
}

// Recorder takes samples from request goroutines without blocking and
// aggregates them on one goroutine of its own.
type Recorder struct {
	cfg                Config
	*batchqueue.Runner // Start, Flush, Close
	queue              *batchqueue.Queue[Sample]
	writes             chan *batch

	// drops counts dropped samples per project until the next flush.
	drops sync.Map // project id → *atomic.Int64
	// observer, if set, sees every folded sample (Prometheus metrics).
	observer atomic.Pointer[func(Sample)]

	dropped, written, flushErrors, lost atomic.Uint64
}

// bucketKey identifies one aggregate row.
type bucketKey struct {
	project, table, operation, method, credential string
	status                                        int
	bucket                                        int64 // Unix seconds of the minute (or hour) start
}

type bucketAgg struct {
	requests  uint64
	latencyUS int64
	sketch    *Sketch
}

// batch is what one flush writes.
type batch struct {
	rows  map[bucketKey]*bucketAgg
	drops map[dropKey]int64
	reply chan error // nil for a periodic flush
	final bool       // the last batch, written on Close
}

type dropKey struct {
	project string
	hour    int64
}

// New returns a recorder; Start begins aggregating and flushing.
func New(cfg Config) *Recorder {
	if cfg.Buffer <= 0 {
		cfg.Buffer = 16384
	}
	if cfg.FoldEvery <= 0 {
		cfg.FoldEvery = 20 * time.Millisecond
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 5 * time.Second
	}
	if cfg.CompactEvery == 0 {
		cfg.CompactEvery = 10 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Recorder{
		cfg:    cfg,
		Runner: batchqueue.NewRunner(),
		queue:  batchqueue.New[Sample](cfg.Buffer),
		writes: make(chan *batch, 1),
	}
}

// Record queues a sample, or drops and counts it when the buffer is full.
// It never blocks, and under load wakes no goroutine: the aggregator polls.
func (r *Recorder) Record(s Sample) {
	if r.queue.Push(s) {
		return
	}
	r.dropped.Add(1)
	c, ok := r.drops.Load(s.ProjectID)
	if !ok {
		c, _ = r.drops.LoadOrStore(s.ProjectID, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(1)
}

// Observe makes f receive every recorded sample, on the aggregator's
// goroutine within FoldEvery of the request: per-request metrics cost the
// request nothing, and one goroutine updating them contends with no other.
// A sample dropped for a full buffer is not observed. A later call
// replaces f.
func (r *Recorder) Observe(f func(Sample)) { r.observer.Store(&f) }

// Stats returns the counters.
func (r *Recorder) Stats() Stats {
	return Stats{Recorded: r.queue.Accepted(), Dropped: r.dropped.Load(), Written: r.written.Load(),
		FlushErrors: r.flushErrors.Load(), Lost: r.lost.Load()}
}

// Start runs the aggregator, the writer and the compactor until Close;
// Flush aggregates every sample recorded so far and returns when their
// buckets are in PostgreSQL; Close writes what is pending and stops.
func (r *Recorder) Start() {
	loops := []func(){r.aggregate, r.write}
	if r.cfg.CompactEvery > 0 {
		loops = append(loops, r.compactLoop)
	}
	r.Runner.Start(loops...)
}

// aggregate owns the open buckets: it folds the queued samples into them
// and hands them to the writer every FlushEvery. While samples keep coming
// it takes them every FoldEvery; when a turn finds none it waits on the
// buffer instead, so that an idle server does not wake up every FoldEvery.
func (r *Recorder) aggregate() {
	defer close(r.writes)
	open := map[bucketKey]*bucketAgg{}
	fold := time.NewTimer(r.cfg.FoldEvery)
	defer fold.Stop()
	var idle <-chan struct{} // the queue's wake-up while waiting for a sample, nil while polling
	tick := time.NewTicker(r.cfg.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-idle:
			r.foldQueued(open, false)
			idle = nil
			fold.Reset(r.cfg.FoldEvery)
		case <-fold.C:
			if !r.foldQueued(open, true) {
				idle = r.queue.Wake
				continue
			}
			fold.Reset(r.cfg.FoldEvery)
		case <-tick.C:
			r.foldQueued(open, false)
			b := r.takeBatch(open)
			select {
			case r.writes <- b:
				open = map[bucketKey]*bucketAgg{}
			default:
				// The writer is still busy with the previous batch: keep
				// aggregating into the same buckets and try next tick.
				r.returnDrops(b.drops)
			}
		case reply := <-r.FlushRequests():
			r.foldQueued(open, false)
			b := r.takeBatch(open)
			b.reply = reply
			r.writes <- b
			open = map[bucketKey]*bucketAgg{}
		case <-r.Stopping():
			r.foldQueued(open, false)
			b := r.takeBatch(open)
			b.reply, b.final = make(chan error, 1), true
			r.writes <- b
			if err := <-b.reply; err != nil {
				r.cfg.Logger.Warn("analytics: the last samples before stopping were not written", "err", err)
			}
			return
		}
	}
}

func (r *Recorder) fold(open map[bucketKey]*bucketAgg, s Sample) {
	k := bucketKey{project: s.ProjectID, table: s.Table, operation: s.Operation, method: s.Method,
		credential: s.Credential, status: s.Status, bucket: s.At.Unix() - mod(s.At.Unix(), 60)}
	a := open[k]
	if a == nil {
		a = &bucketAgg{sketch: NewSketch()}
		open[k] = a
	}
	a.requests++
	if Timed(s.Operation) {
		a.latencyUS += s.Latency.Microseconds()
		a.sketch.Add(s.Latency)
	}
}

// The realtime operations (internal/realtime, internal/service): a stream's
// sample is recorded when it ends, so its "latency" is how long a client
// watched; an event is a delivered change, not a request, and takes no time
// of its own. Both are counted, but neither says how fast the API answers.
const (
	OperationStream = "stream"
	OperationEvent  = "event"
)

// Timed reports whether an operation's latency is an answer's: false for
// the realtime stream and its events, which stay out of the latency
// percentiles and the error rate.
func Timed(operation string) bool {
	return operation != OperationStream && operation != OperationEvent
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// takeBatch wraps the open buckets and the drop counts into a batch.
func (r *Recorder) takeBatch(open map[bucketKey]*bucketAgg) *batch {
	b := &batch{rows: open, drops: map[dropKey]int64{}}
	now := r.cfg.Now().Unix()
	hour := now - mod(now, 3600)
	r.drops.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Swap(0); n > 0 {
			b.drops[dropKey{k.(string), hour}] += n
		}
		return true
	})
	return b
}

// returnDrops puts drop counts back when a batch could not be handed off.
func (r *Recorder) returnDrops(drops map[dropKey]int64) {
	for k, n := range drops {
		c, _ := r.drops.LoadOrStore(k.project, new(atomic.Int64))
		c.(*atomic.Int64).Add(n)
	}
}

// maxCarriedRows bounds what a writer keeps for retry while PostgreSQL is
// unreachable; beyond it the oldest failure is given up and counted.
const maxCarriedRows = 200_000

// write writes batches in order. A failed batch is merged into the next
// one, so a short database outage loses nothing.
func (r *Recorder) write() {
	var carry *batch
	for b := range r.writes {
		if carry != nil {
			mergeBatch(b, carry)
			carry = nil
		}
		timeout := 30 * time.Second
		if b.final {
			timeout = 5 * time.Second // shutdown should not hang on a dead database
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err := writeBatch(ctx, r.cfg.DB, b)
		cancel()
		if err != nil {
			r.flushErrors.Add(1)
			r.cfg.Logger.Warn("analytics: write buckets; will retry with the next flush", "err", err, "buckets", len(b.rows))
			if len(b.rows) <= maxCarriedRows {
				carry = &batch{rows: b.rows, drops: b.drops}
			} else {
				r.lost.Add(samplesIn(b))
			}
		} else {
			r.written.Add(samplesIn(b))
		}
		if b.reply != nil {
			b.reply <- err
		}
	}
}

func samplesIn(b *batch) uint64 {
	var n uint64
	for _, a := range b.rows {
		n += a.requests
	}
	return n
}

// mergeBatch adds from's buckets and drops into into.
func mergeBatch(into, from *batch) {
	for k, a := range from.rows {
		if have := into.rows[k]; have != nil {
			have.requests += a.requests
			have.latencyUS += a.latencyUS
			have.sketch.Merge(a.sketch)
		} else {
			into.rows[k] = a
		}
	}
	for k, n := range from.drops {
		into.drops[k] += n
	}
}

func (r *Recorder) compactLoop() {
	t := time.NewTicker(r.cfg.CompactEvery)
	defer t.Stop()
	for {
		select {
		case <-r.Stopping():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			if err := Compact(ctx, r.cfg.DB, r.cfg.Now()); err != nil {
				r.cfg.Logger.Warn("analytics: roll up and expire buckets", "err", err)
			}
			cancel()
		}
	}
}

// foldQueued folds what was queued when it was called (not what arrives
// meanwhile, which could go on forever under load) and reports whether
// there was any. With none and wait set, the next sample wakes the
// aggregator.
func (r *Recorder) foldQueued(open map[bucketKey]*bucketAgg, wait bool) bool {
	samples := r.queue.Take(wait)
	for _, s := range samples {
		r.fold(open, s)
	}
	if f := r.observer.Load(); f != nil {
		for _, s := range samples {
			(*f)(s)
		}
	}
	r.queue.Done(samples)
	return len(samples) > 0
}
