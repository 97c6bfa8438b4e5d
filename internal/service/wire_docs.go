package service

import (
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/openapi"
	"github.com/tablesmith/tablesmith/openapi/swaggerui"
)

// wireDocs adds the OpenAPI document and Swagger UI routes (issue 5). A
// loaded version gets its document, which renders once, on the first
// request for it: rendering takes tens of milliseconds per table, which
// the table requests that load a version should not wait for.
func (s *Service) wireDocs() error {
	for name, route := range apihttp.DocsRoutes(swaggerui.New(swaggerui.Embedded()), s.log) {
		s.apiDeps.Routes[name] = route
	}
	s.renderDocs = func(e *registry.Entry) {
		e.OpenAPI = openapi.New(e.Published.Compiled, openapi.Options{ProjectID: e.ProjectID, Version: e.Version})
	}
	return nil
}
