package platformhttp

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"go.yaml.in/yaml/v4"
)

// platformOpenAPIYAML is the OpenAPI 3.1 document of the platform API. It
// is written by hand next to the handlers; TestThePlatformDocumentNamesEveryRoute
// fails when a route of routes() is missing from it, and the dashboard's
// types (dashboard/src/api/platform.gen.ts) are generated from this file.
//
//go:embed openapi/platform.yaml
var platformOpenAPIYAML []byte

var platformOpenAPIJSON = sync.OnceValues(func() ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(platformOpenAPIYAML, &doc); err != nil {
		return nil, fmt.Errorf("platform openapi: %w", err)
	}
	return json.Marshal(doc)
})

// PlatformOpenAPIJSON returns the document as JSON, converted once.
func PlatformOpenAPIJSON() ([]byte, error) { return platformOpenAPIJSON() }

// openAPI answers GET /api/openapi.json: the document, without auth, and
// cacheable for an hour (it changes only with the server's version).
func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) error {
	raw, err := PlatformOpenAPIJSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, err = w.Write(raw)
	return err
}
