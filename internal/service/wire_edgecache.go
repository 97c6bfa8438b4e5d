package service

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/edgecache"
	"github.com/tablesmith/tablesmith/internal/events"
)

// wireEdgeCache keeps edge caches (Caddy's cache-handler in front of the
// generated API, docs/edge-cache.md) from serving answers that a write or
// a publish made stale: a write is announced to every node, and each node
// has the cache in its own process drop the project's answers that read
// the changed tables (the cache-handler adapter drops all of the
// project's). Without a cache in the process the purges do nothing; the
// announcements are sent anyway, for the nodes that have one.
//
// HTTP caches in front of the nodes (purge_url) are told by the node that
// made a write; a publish or a project's deletion, announced from several
// places, by every node that hears it (the purges are idempotent).
func (s *Service) wireEdgeCache() error {
	s.apiDeps.CacheChanges = edgeAnnouncer{s}
	s.remotePurge = edgecache.NewRemote(s.cfg.PurgeURLs, s.log)
	if s.remotePurge != nil {
		s.starters = append(s.starters, func(ctx context.Context) error {
			go s.remotePurge.Run(ctx)
			return nil
		})
	}
	events.On(&s.events, func(e events.CacheChanged) { s.purgeEdge(e.ProjectID, e.Tables) })
	events.On(&s.events, func(e events.ProjectChanged) {
		s.purgeEdge(e.ProjectID, nil)
		if s.remotePurge != nil {
			s.remotePurge.Purge(e.ProjectID, nil)
		}
	})
	s.onReconnect = append(s.onReconnect, func() {
		if p := s.EdgeCache.Get(); p != nil {
			p.PurgeAll()
		}
	})
	return nil
}

// purgeEdge drops a project's answers that read tables (all of them when
// there are none) from this process's edge cache.
func (s *Service) purgeEdge(projectID string, tables []string) {
	if p := s.EdgeCache.Get(); p != nil {
		p.Purge(projectID, tables)
	}
}

// edgeAnnouncer is the generated API's ChangeAnnouncer.
type edgeAnnouncer struct{ s *Service }

// Changed purges this node's cache at once (the writer's next read may
// come straight back here) and tells every node, this one included, after
// the write committed.
func (a edgeAnnouncer) Changed(ctx context.Context, projectID string, tables []string) {
	a.s.purgeEdge(projectID, tables)
	if a.s.remotePurge != nil {
		a.s.remotePurge.Purge(projectID, tables)
	}
	if err := events.Notify(ctx, a.s.DB, events.CacheChanged{ProjectID: projectID, Tables: tables}); err != nil {
		// Other nodes' caches keep the answers until their max-age.
		a.s.log.Warn("announce a write to the edge caches", "project", projectID, "err", err)
	}
}
