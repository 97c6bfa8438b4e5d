package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/ratelimit"
	"github.com/tablesmith/tablesmith/internal/requestlog"
	"github.com/tablesmith/tablesmith/internal/store"
)

// limits joins the plans resolver, the rate limiter and the analytics
// recorder to the generated API (as its Limiter, Recorder and owner
// sessions' plan) and to the platform API (the analytics endpoint and the
// usage meter).
type limits struct {
	plans    *plans.Resolver
	limiter  *ratelimit.Limiter
	recorder *analytics.Recorder
	// log is the request log; nil when request_log is off.
	log *requestlog.Log
	db  *sql.DB
	now func() time.Time
}

// wireLimits adds rate limiting, analytics and metrics (issue 6).
func (s *Service) wireLimits() error {
	resolver, err := plans.NewResolver(plans.ResolverConfig{
		Owner: s.projectOwner,
		// Read at every request: a reload that redefines plans applies at once.
		Plans: func() (plans.Set, string) {
			st := s.Settings()
			return st.Plans, st.DefaultPlan
		},
	})
	if err != nil {
		return err
	}
	lim, err := ratelimit.New(ratelimit.Config{RedisURL: s.cfg.RedisURL, Plans: resolver, Logger: s.log})
	if err != nil {
		return err
	}
	l := &limits{
		plans:    resolver,
		limiter:  lim,
		recorder: analytics.New(analytics.Config{DB: s.DB, Logger: s.log}),
		db:       s.DB,
		now:      s.cfg.Now,
	}
	s.apiDeps.Limiter = l
	s.apiDeps.Recorder = l
	s.apiDeps.Owners = ownerSessions{sessions: &s.sessions, plans: resolver, roles: s.Store.AccountRole}
	s.platformDeps.Analytics = l.report
	s.platformDeps.Usage = l.usage
	s.onReconnect = append(s.onReconnect, resolver.ForgetAll)
	events.On(&s.events, func(e events.PlanChanged) { resolver.ForgetAccount(e.AccountID) })
	if !s.cfg.WithoutRequestLog {
		l.log = requestlog.New(requestlog.Config{DB: s.DB, Logger: s.log, Now: s.cfg.Now, Retention: s.logRetention})
		s.platformDeps.Logs = l.logs
	}
	s.starters = append(s.starters, func(ctx context.Context) error {
		lim.Start(ctx)
		l.recorder.Start()
		if l.log != nil {
			l.log.Start()
		}
		return nil
	})
	s.closers = append(s.closers, func() {
		l.recorder.Close() // writes what is pending: before the pool closes
		if l.log != nil {
			l.log.Close()
		}
		lim.Close()
	})
	return nil
}

// projectOwner reads the account and plan of a project for the plans
// resolver's cache (once per project, not per request).
func (s *Service) projectOwner(ctx context.Context, projectID string) (plans.Owner, error) {
	p, err := s.Store.Project(ctx, projectID)
	if err != nil {
		return plans.Owner{}, err
	}
	acc, err := s.Store.AccountByID(ctx, p.AccountID)
	if err != nil {
		return plans.Owner{}, err
	}
	return plans.Owner{AccountID: acc.ID, Plan: acc.Plan, SessionGen: acc.SessionGen}, nil
}

// ownerSessions admits a project owner's platform session on the
// generated API (apihttp.OwnerVerifier): the session's signature, then its
// account against the project's owner, which the plans resolver has
// cached, so the check reads no database on a warm project.
type ownerSessions struct {
	sessions *atomic.Pointer[auth.Sessions] // swapped when the secret changes
	plans    *plans.Resolver
	// roles reads a member's role (docs/teams.md): read per request, so a
	// removed member is refused at once.
	roles func(ctx context.Context, projectID string, accountID int64) (string, error)
}

// VerifyOwner implements apihttp.OwnerVerifier.
func (o ownerSessions) VerifyOwner(ctx context.Context, projectID, token string, now time.Time) (apihttp.SessionAdmission, error) {
	sess := o.sessions.Load()
	if sess == nil {
		return apihttp.SessionAdmission{}, auth.ErrInvalidToken // not started: no key to check with
	}
	session, err := sess.VerifySession(token)
	if err != nil {
		return apihttp.SessionAdmission{}, err
	}
	return o.ownerOf(ctx, projectID, session, now)
}

// VerifyTicket implements apihttp.OwnerVerifier.
func (o ownerSessions) VerifyTicket(ctx context.Context, projectID, ticket string, opening bool, now time.Time) (apihttp.SessionAdmission, error) {
	sess := o.sessions.Load()
	if sess == nil {
		return apihttp.SessionAdmission{}, auth.ErrInvalidToken
	}
	accountID, err := sess.VerifyTicket(ticket, projectID, opening)
	if err != nil {
		return apihttp.SessionAdmission{}, err
	}
	// A ticket lives a minute and was issued to a live session.
	return o.ownerOf(ctx, projectID, auth.Session{AccountID: accountID, Generation: -1}, now)
}

// ownerOf checks that the session's account owns the project or is its
// member (a viewer reads only), and returns its plan's statement timeout.
// An owner's session older than the account's generation (its password
// changed since) is refused once the cached owner shows the change
// (within the resolver's TTL); a newer one passes a stale cache, so the
// session that made the change keeps working.
func (o ownerSessions) ownerOf(ctx context.Context, projectID string, session auth.Session, now time.Time) (apihttp.SessionAdmission, error) {
	owner, plan, err := o.plans.Owner(ctx, projectID, now)
	if err != nil {
		return apihttp.SessionAdmission{}, err
	}
	adm := apihttp.SessionAdmission{StatementTimeout: plan.StatementTimeout}
	if owner.AccountID == session.AccountID {
		if session.Generation >= 0 && session.Generation < owner.SessionGen {
			return apihttp.SessionAdmission{}, auth.ErrInvalidToken
		}
		return adm, nil
	}
	role, err := o.roles(ctx, projectID, session.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return apihttp.SessionAdmission{}, apihttp.ErrNotOwner
	}
	if err != nil {
		return apihttp.SessionAdmission{}, err
	}
	adm.ReadOnly = role == store.RoleViewer
	return adm, nil
}

// Take implements apihttp.Limiter.
func (l *limits) Take(ctx context.Context, projectID string, now time.Time) (apihttp.Quota, error) {
	d, err := l.limiter.Take(ctx, projectID, now)
	return l.quota(d, err)
}

// TakeMore implements apihttp.BulkLimiter: a bulk create counts n more
// requests than its own.
func (l *limits) TakeMore(ctx context.Context, projectID string, n int64, now time.Time) (apihttp.Quota, error) {
	d, err := l.limiter.TakeN(ctx, projectID, n, now)
	return l.quota(d, err)
}

// quota turns the limiter's decision into what the handler reports.
func (l *limits) quota(d ratelimit.Decision, err error) (apihttp.Quota, error) {
	if err != nil {
		return apihttp.Quota{}, err
	}
	q := apihttp.Quota{Allowed: d.Allowed, Limit: d.Limit, Remaining: d.Remaining, Reset: d.Reset,
		StatementTimeout: d.Plan.StatementTimeout}
	if !d.Allowed {
		q.Message = d.Message(l.now(), l.limiter.Window())
	}
	return q, nil
}

// Record implements apihttp.Recorder; it never blocks.
func (l *limits) Record(s apihttp.Sample) {
	a := analytics.Sample{ProjectID: s.ProjectID, Table: s.Table, Operation: s.Operation, Method: s.Method,
		Credential: s.Credential, Status: s.Status, Latency: s.Latency, At: s.At}
	l.recorder.Record(a)
	if l.log != nil {
		l.log.Record(requestlog.Entry{ProjectID: s.ProjectID, At: s.At, Method: s.Method, Path: s.Path,
			RawQuery: s.RawQuery, Status: s.Status, Latency: s.Latency, Principal: s.Credential,
			KeyPrefix: s.KeyPrefix, EndUser: s.EndUser, Origin: s.Origin, RequestID: s.RequestID, Rows: s.Rows,
			Bytes: s.Bytes, ErrorBody: s.ErrorBody})
	}
}

// report is a project's analytics with its usage of plan
// (platformhttp.Deps.Analytics).
func (l *limits) report(ctx context.Context, projectID string, win analytics.Window, plan plans.Plan) (*analytics.Report, error) {
	rep, err := analytics.Query(ctx, l.db, projectID, win)
	if err != nil {
		return rep, err
	}
	used, resets := l.usage(ctx, projectID)
	rep.PlanUsage = analytics.PlanUsage{Plan: plan.Name, Limit: plan.RatePerHour, Used: used, ResetsAt: resets.UTC()}
	return rep, nil
}

// PruneRequestLog runs the request log's retention pass now (tests; it
// runs every minute by itself).
func (s *Service) PruneRequestLog(ctx context.Context) error {
	l := s.limitsOf()
	if l == nil || l.log == nil {
		return fmt.Errorf("the request log is off")
	}
	return l.log.Prune(ctx)
}

// logs reads a page of a project's request log (platformhttp.Deps.Logs).
func (l *limits) logs(ctx context.Context, projectID string, f requestlog.Filter) ([]requestlog.Row, string, error) {
	return requestlog.Query(ctx, l.db, projectID, f)
}

// logRetention is each plan's request-log retention, read by every
// retention pass so that a reload applies.
func (s *Service) logRetention() (map[string]time.Duration, time.Duration) {
	st := s.Settings()
	byPlan := make(map[string]time.Duration, len(st.Plans))
	for name, p := range st.Plans {
		byPlan[name] = p.LogRetention
	}
	other := plans.DefaultLogRetention
	if p, ok := st.Plans[st.DefaultPlan]; ok {
		other = p.LogRetention
	}
	return byPlan, other
}

// usage is the current window's count of a project (platformhttp.Deps.Usage).
func (l *limits) usage(ctx context.Context, projectID string) (int64, time.Time) {
	d, err := l.limiter.Peek(ctx, projectID)
	if err != nil {
		return 0, l.now().Add(l.limiter.Window())
	}
	return d.Used, d.Reset
}

// limitsOf returns the service's limits (set by wireLimits).
func (s *Service) limitsOf() *limits {
	l, _ := s.apiDeps.Limiter.(*limits)
	return l
}

// ObserveRequests makes f receive every recorded generated-API sample, on
// the analytics aggregator's goroutine within 20 ms of the answer (not on
// the request's); f must not block. A later call replaces f.
func (s *Service) ObserveRequests(f func(analytics.Sample)) {
	if l := s.limitsOf(); l != nil {
		l.recorder.Observe(f)
	}
}

// LimitStats are the rate limiter's counters.
func (s *Service) LimitStats() ratelimit.Stats {
	if l := s.limitsOf(); l != nil {
		return l.limiter.Stats()
	}
	return ratelimit.Stats{}
}

// AnalyticsStats are the analytics recorder's counters.
func (s *Service) AnalyticsStats() analytics.Stats {
	if l := s.limitsOf(); l != nil {
		return l.recorder.Stats()
	}
	return analytics.Stats{}
}

// FlushAnalytics writes every sample and request-log entry recorded so
// far to PostgreSQL now
// (tests; shutdown does it by itself).
func (s *Service) FlushAnalytics(ctx context.Context) error {
	l := s.limitsOf()
	if l == nil {
		return fmt.Errorf("analytics are not wired")
	}
	if err := l.recorder.Flush(ctx); err != nil {
		return err
	}
	if l.log != nil {
		return l.log.Flush(ctx)
	}
	return nil
}
