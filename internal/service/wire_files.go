package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/store"
)

// DefaultMaxFileSize bounds one uploaded file when the configuration
// sets no max_file_size: a column's max_size may only lower it.
const DefaultMaxFileSize = 50 << 20

// Sweep timing: a project's orphans are swept sweepDelay after a change
// that may have left some (so that a burst of deletes is one sweep), and
// again once the grace (files.Grace) has passed, when the youngest of them are old
// enough; every node also sweeps every project it holds files of each
// sweepPeriod, which catches a crash between an upload and its write.
const (
	sweepDelay  = 2 * time.Second
	sweepPeriod = time.Hour
)

// wireFiles gives the generated API the store of file columns' files
// (docs/files.md): a directory on this node or a bucket of an
// S3-compatible store, swept of the files no row names any more.
func (s *Service) wireFiles() error {
	var kept files.Store
	switch {
	case s.cfg.FilesS3 != nil:
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		s3, err := files.NewS3(ctx, *s.cfg.FilesS3)
		if err != nil {
			return err
		}
		kept = s3
	case s.cfg.FilesDir != "":
		dir, err := files.NewLocal(s.cfg.FilesDir)
		if err != nil {
			return fmt.Errorf("files_dir: %w", err)
		}
		kept = dir
	default:
		return nil
	}
	s.apiDeps.Files = kept
	s.apiDeps.MaxFileSize = s.cfg.MaxFileSize
	if s.apiDeps.MaxFileSize <= 0 {
		s.apiDeps.MaxFileSize = DefaultMaxFileSize
	}
	sw := &fileSweeper{s: s, store: kept, grace: s.cfg.FilesGrace, soon: map[string]bool{}, late: map[string]bool{}}
	if sw.grace <= 0 {
		sw.grace = files.Grace
	}
	s.apiDeps.FilesOrphaned = sw.later
	usage := &fileUsage{store: kept, byProject: map[string]usedBytes{}}
	s.platformDeps.FileUsage = usage.used
	s.apiDeps.FileLimits = func(ctx context.Context, projectID string) (files.Limits, error) {
		return s.fileLimits(ctx, usage, projectID)
	}
	s.apiDeps.FileTokenKey = func() []byte {
		if k := s.fileTokenKey.Load(); k != nil {
			return *k
		}
		return nil
	}
	// A generate that dropped a file column or table, or a deleted
	// project, leaves files no row names.
	events.On(&s.events, func(e events.ProjectChanged) { sw.later(e.ProjectID) })
	s.starters = append(s.starters, func(ctx context.Context) error {
		sw.start(ctx)
		// Once soon after the start (a crash may have left uploads no
		// write named), then every period.
		time.AfterFunc(sweepDelay, func() {
			if ctx.Err() == nil {
				sw.sweepAll(ctx)
			}
		})
		s.tick(ctx, sweepPeriod, func() bool { sw.sweepAll(ctx); return false })
		return nil
	})
	return nil
}

// fileSweeper removes the stored files that no row names.
type fileSweeper struct {
	s     *Service
	store files.Store
	grace time.Duration
	mu    sync.Mutex
	ctx   context.Context // the service's background context, once started
	soon  map[string]bool // projects with a sweep due in sweepDelay
	late  map[string]bool // projects with a sweep due after files.Grace
}

func (f *fileSweeper) start(ctx context.Context) {
	f.mu.Lock()
	f.ctx = ctx
	f.mu.Unlock()
}

// later schedules the sweeps of project after a change that may have
// orphaned some of its files.
func (f *fileSweeper) later(project string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, due := range []struct {
		pending map[string]bool
		after   time.Duration
	}{{f.soon, sweepDelay}, {f.late, f.grace + time.Minute}} {
		if due.pending[project] {
			continue
		}
		due.pending[project] = true
		pending := due.pending
		time.AfterFunc(due.after, func() {
			f.mu.Lock()
			delete(pending, project)
			ctx := f.ctx
			f.mu.Unlock()
			if ctx != nil && ctx.Err() == nil {
				f.sweep(ctx, project)
			}
		})
	}
}

// sweepAll sweeps every project this node holds files of.
func (f *fileSweeper) sweepAll(ctx context.Context) {
	projects := map[string]bool{}
	err := f.store.List(ctx, "", func(i files.Info) error {
		if p, _, ok := strings.Cut(i.Key, "/"); ok {
			projects[p] = true
		}
		return nil
	})
	if err != nil {
		f.s.log.Warn("stored files not listed for the sweep", "err", err)
		return
	}
	for p := range projects {
		f.sweep(ctx, p)
	}
}

// sweep removes project's files that no row names (all of them if the
// project is gone). An error leaves everything in place.
func (f *fileSweeper) sweep(ctx context.Context, project string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	referenced := func(ctx context.Context) (map[string]bool, error) { return f.referenced(ctx, project) }
	if _, err := f.s.Store.Project(ctx, project); errors.Is(err, store.ErrNotFound) {
		referenced = nil
	} else if err != nil {
		f.s.log.Warn("file sweep skipped", "project", project, "err", err)
		return
	}
	n, err := files.Sweep(ctx, f.store, project, referenced, f.grace, time.Now())
	if err != nil {
		f.s.log.Warn("file sweep failed", "project", project, "err", err)
		return
	}
	if n > 0 {
		f.s.log.Info("removed stored files no record names", "project", project, "files", n)
	}
}

// referenced reads the names of every file the project's rows hold.
func (f *fileSweeper) referenced(ctx context.Context, project string) (map[string]bool, error) {
	names := map[string]bool{}
	entry, err := f.s.Registry.Get(ctx, project)
	if errors.Is(err, registry.ErrNotPublished) {
		return names, nil // no tables, so no row names a file
	}
	if err != nil {
		return nil, err
	}
	q := files.ReferencedSQL(entry.Published)
	if q == "" {
		return names, nil
	}
	var raw []byte
	if err := entry.Tables.QueryRowContext(ctx, q).Scan(&raw); err != nil {
		return nil, err
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	for _, n := range list {
		names[n] = true
	}
	return names, nil
}

// fileLimits is what the project's plan leaves for an upload: one file's
// bound, and its storage less what its files hold now.
func (s *Service) fileLimits(ctx context.Context, usage *fileUsage, projectID string) (files.Limits, error) {
	lim := files.Limits{Remaining: -1}
	l := s.limitsOf()
	if l == nil {
		return lim, nil // served without metering: no plan applies
	}
	plan, err := l.plans.Plan(ctx, projectID, s.cfg.Now())
	if err != nil {
		return lim, err
	}
	if plan.MaxFileSize > 0 {
		lim.MaxFileSize = plan.MaxFileSize
	}
	if plan.FileStorage < 0 {
		return lim, nil
	}
	used, err := usage.used(ctx, projectID)
	if err != nil {
		return lim, err
	}
	lim.Remaining = max(0, plan.FileStorage-used)
	lim.Stored = func(n int64) { usage.add(projectID, n) }
	lim.Full = fmt.Sprintf("%s of the %s plan's %s are used", humanize.IBytes(uint64(used)), plan.Name, humanize.IBytes(uint64(plan.FileStorage)))
	return lim, nil
}

// usageTTL is how old the bytes a project's files hold may be when an
// upload is checked against its plan: a listing of its files per upload
// would cost as much as the upload on a project of many small files.
const usageTTL = 10 * time.Second

// fileUsage remembers the bytes each project's files hold on this node.
type fileUsage struct {
	store     files.Store
	mu        sync.Mutex
	byProject map[string]usedBytes
}

type usedBytes struct {
	bytes int64
	at    time.Time
}

// add counts n more bytes for project until its next listing.
func (u *fileUsage) add(project string, n int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if e, ok := u.byProject[project]; ok {
		e.bytes += n
		u.byProject[project] = e
	}
}

// used is the bytes project's files hold (thumbnails, a cache, aside),
// at most usageTTL old.
func (u *fileUsage) used(ctx context.Context, project string) (int64, error) {
	u.mu.Lock()
	e, ok := u.byProject[project]
	u.mu.Unlock()
	if ok && time.Since(e.at) < usageTTL {
		return e.bytes, nil
	}
	var total int64
	thumbs := project + "/thumbs/"
	err := u.store.List(ctx, project+"/", func(i files.Info) error {
		if !strings.HasPrefix(i.Key, thumbs) {
			total += i.Size
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	u.mu.Lock()
	for p, old := range u.byProject { // forget projects nobody uploads to
		if time.Since(old.at) > time.Hour {
			delete(u.byProject, p)
		}
	}
	u.byProject[project] = usedBytes{total, time.Now()}
	u.mu.Unlock()
	return total, nil
}
