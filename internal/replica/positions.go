package replica

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// positions remember, per credential, the WAL position of its newest
// write, for TTL, where every node can read it: a client that writes on
// one node and reads on another must find its position there.
type positions interface {
	// wrote records that scope's write committed at or before the
	// primary's current position, and returns that position.
	wrote(ctx context.Context, primary *sql.DB, scope string) (LSN, error)
	// get returns scope's recorded position, 0 when it has none.
	get(ctx context.Context, scope string) (LSN, error)
}

// currentLSN is the primary's position, read right after a write's
// commit: pg_current_wal_insert_lsn() rather than pg_current_wal_lsn(),
// because with synchronous_commit off the commit record may still be in
// the WAL buffers, ahead of the written position; the insert position is
// past it either way.
const currentLSN = `SELECT pg_current_wal_insert_lsn()::text`

// redisPositions keep positions in Redis, shared by every node.
type redisPositions struct {
	client *redis.Client
	ttl    time.Duration
}

// keepLarger sets the key unless it already holds a later position
// (two writes of one client on two nodes may finish in either order),
// and renews its lifetime either way.
var keepLarger = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur < ARGV[1] then
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`)

func redisKey(scope string) string { return "tablesmith:rw:" + scope }

func (p *redisPositions) wrote(ctx context.Context, primary *sql.DB, scope string) (LSN, error) {
	var text string
	if err := primary.QueryRowContext(ctx, currentLSN).Scan(&text); err != nil {
		return 0, err
	}
	lsn, err := ParseLSN(text)
	if err != nil {
		return 0, err
	}
	err = keepLarger.Run(ctx, p.client, []string{redisKey(scope)}, lsn.key(), p.ttl.Milliseconds()).Err()
	return lsn, err
}

func (p *redisPositions) get(ctx context.Context, scope string) (LSN, error) {
	v, err := p.client.Get(ctx, redisKey(scope)).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, c := range []byte(v) {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'A' && c <= 'F':
			n = n<<4 | uint64(c-'A'+10)
		default:
			return 0, errors.New("replica: unreadable position in Redis: " + v)
		}
	}
	return LSN(n), nil
}

// pgPositions keep positions in an unlogged table of the primary when
// there is no Redis: one statement both reads the position and records
// it, and a credential's reads look it up there. Unlogged, because the
// rows are worth seconds and need neither WAL nor the replicas.
type pgPositions struct {
	db  *sql.DB // the primary (the control database)
	ttl time.Duration

	once    sync.Mutex
	created bool
}

const (
	createPositions = `CREATE SCHEMA IF NOT EXISTS tablesmith;
		CREATE UNLOGGED TABLE IF NOT EXISTS tablesmith.read_positions (
			scope text PRIMARY KEY,
			lsn pg_lsn NOT NULL,
			expires_at timestamptz NOT NULL)`
	recordPosition = `INSERT INTO tablesmith.read_positions AS p (scope, lsn, expires_at)
		VALUES ($1, pg_current_wal_insert_lsn(), now() + $2 * interval '1 millisecond')
		ON CONFLICT (scope) DO UPDATE
			SET lsn = CASE WHEN p.expires_at > now() THEN GREATEST(p.lsn, EXCLUDED.lsn) ELSE EXCLUDED.lsn END,
				expires_at = EXCLUDED.expires_at
		RETURNING lsn::text`
	readPosition  = `SELECT lsn::text FROM tablesmith.read_positions WHERE scope = $1 AND expires_at > now()`
	sweepPosition = `DELETE FROM tablesmith.read_positions WHERE expires_at < now() - interval '1 minute'`
)

// ensure creates the table once per process (a node that starts with
// replicas and no Redis), outside the numbered migrations: nothing else
// uses it.
func (p *pgPositions) ensure(ctx context.Context) error {
	p.once.Lock()
	defer p.once.Unlock()
	if p.created {
		return nil
	}
	if _, err := p.db.ExecContext(ctx, createPositions); err != nil {
		return err
	}
	p.created = true
	return nil
}

func (p *pgPositions) wrote(ctx context.Context, _ *sql.DB, scope string) (LSN, error) {
	if err := p.ensure(ctx); err != nil {
		return 0, err
	}
	var text string
	if err := p.db.QueryRowContext(ctx, recordPosition, scope, p.ttl.Milliseconds()).Scan(&text); err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

func (p *pgPositions) get(ctx context.Context, scope string) (LSN, error) {
	if err := p.ensure(ctx); err != nil {
		return 0, err
	}
	var text string
	err := p.db.QueryRowContext(ctx, readPosition, scope).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

func (p *pgPositions) sweep(ctx context.Context) {
	if p.ensure(ctx) == nil {
		_, _ = p.db.ExecContext(ctx, sweepPosition)
	}
}

// recent is this node's own memory of its clients' write positions: a
// read on the node that took the write needs no other store to be safe,
// even when that store failed to record it.
type recent struct {
	mu  sync.Mutex
	m   map[string]recentEntry
	ttl time.Duration
}

type recentEntry struct {
	lsn     LSN
	expires time.Time
}

func (r *recent) put(scope string, lsn LSN, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.m[scope]; ok && e.expires.After(now) && e.lsn > lsn {
		lsn = e.lsn
	}
	r.m[scope] = recentEntry{lsn: lsn, expires: now.Add(r.ttl)}
}

func (r *recent) get(scope string, now time.Time) LSN {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[scope]
	if !ok || !e.expires.After(now) {
		return 0
	}
	return e.lsn
}

// sweep drops expired entries.
func (r *recent) sweep(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, e := range r.m {
		if !e.expires.After(now) {
			delete(r.m, k)
		}
	}
}
