package service

import (
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/swaggerui"
	"github.com/tablesmith/tablesmith/openapi"
)

// wireDocs adds the OpenAPI document and Swagger UI routes (issue 5). A
// loaded version gets its document, which renders on the first request
// for it (the table requests that load a version should not wait for
// it) into a cache shared by all projects and bounded by bytes.
func (s *Service) wireDocs() error {
	for name, route := range apihttp.DocsRoutes(swaggerui.New(swaggerui.Embedded()), s.log) {
		s.apiDeps.Routes[name] = route
	}
	// One cache for all projects bounds what rendered documents hold.
	cache := openapi.NewCache(openapi.DefaultCacheBytes)
	s.renderDocs = func(e *registry.Entry) {
		e.OpenAPI = openapi.NewIn(cache, e.Published.Compiled, openapi.Options{ProjectID: e.ProjectID, Title: e.ProjectName, Version: e.Version, MaxPageSize: s.cfg.MaxPageSize,
			MaxBulkRows: s.cfg.MaxBulkRows})
	}
	return nil
}
