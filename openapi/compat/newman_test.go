package compat_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/openapi/check"
)

// postmanImport is what a Postman user picks in the import dialog
// (docs/openapi.md, "Postman and newman"): Parameter generation Example
// (the default, Schema, sends <string> placeholders) and optional
// parameters off (on, each one without an example is sent with a faked
// value: offset beside page, random filters).
const postmanImport = `{"parametersResolution": "Example", "enableOptionalParameters": false}`

// oneRecord matches the names of the operations on /<table>/{id}.
const oneRecord = `(GET Get a record from|HEAD Headers of a record of|PUT Replace a record in|PATCH Update fields of a record in|DELETE Delete a record from)`

// refusedByRule are the requests of the everything.json collection that
// no example can make succeed, by request name pattern: the status the
// server answers and why. 0 is a request newman's --timeout-request cut.
var refusedByRule = []struct {
	request *regexp.Regexp
	status  int
	why     string
}{
	{regexp.MustCompile(`^(PATCH|DELETE) (Update|Delete) records of \w+ by filter$`), 400,
		"needs one of filter[...], filter or search, all optional: the document cannot say 'one of'"},
	{regexp.MustCompile(`^(GET Aggregate|HEAD Headers of the groups of) \w+$`), 400,
		"needs group_by or a function, all optional"},
	{regexp.MustCompile(`^` + oneRecord + ` tags$`), 404,
		"tags has uuid ids, made by the server: no example names one"},
	{regexp.MustCompile(`^(POST Create a record in|POST Create records in|PUT Replace a record in) post_tags( in bulk)?$`), 400,
		"tag_id is a required uuid reference, which has no example"},
	{regexp.MustCompile(`^` + oneRecord + ` post_tags$`), 404, "no create of post_tags succeeded"},
	{regexp.MustCompile(`^POST (Trade a refresh token for a new pair|Sign out)$`), 401,
		"needs the refresh token a sign-in answered"},
	{regexp.MustCompile(`^GET The signed-in end user$`), 403, "needs an end user's access token, not the API key"},
	{regexp.MustCompile(`^GET Start a sign-in with a provider$`), 400, "its example redirect_to is not an origin the project lists (and it has no provider)"},
	{regexp.MustCompile(`^GET Where the provider returns$`), 404, "the project has no sign-in provider"},
	{regexp.MustCompile(`^POST Trade a provider sign-in's code for tokens$`), 401, "needs the one-time code of a provider sign-in"},
	{regexp.MustCompile(`^POST (Mail a password reset link|Mail a new verification link)$`), 400,
		"its example redirect_to is not an origin the project lists"},
	{regexp.MustCompile(`^POST Set a new password with a reset token$`), 400, "needs the token of a mailed link (and its example password is short)"},
	{regexp.MustCompile(`^POST (Verify an e-mail address with its token|Confirm an e-mail change with its token)$`), 400,
		"needs the token of a mailed link"},
	{regexp.MustCompile(`^POST Change the signed-in user's e-mail address$`), 403, "needs an end user's access token, not the API key"},
	{regexp.MustCompile(`^GET Open a stream of changes$`), 0, "the stream does not end: --timeout-request cut it"},
	{regexp.MustCompile(`^POST Upload a file for \w+\.\w+$`), 400, "needs a file: an imported collection sends its file part empty (pick a file in Postman)"},
	{regexp.MustCompile(`^(GET Download a file|POST A signed URL of a file) of \w+\.\w+$`), 404,
		"names a stored file: no upload of the collection succeeded, and no example names one"},
}

// TestAPostmanCollectionImportedFromTheDescriptionRunsInNewman (issue
// 36.4): the fresh project's openapi.json, converted by
// openapi-to-postmanv2 as Postman's importer does (convertV2) with
// postmanImport, and run by newman with the project's API key and
// --timeout-request: the run ends although the realtime stream does not,
// every request answers 2xx but those refusedByRule names (each with its
// status), and none of those succeeds (the list would be stale).
func TestAPostmanCollectionImportedFromTheDescriptionRunsInNewman(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "postman.mjs")
	check.Run(t, f.dir, 2*time.Minute, nil, "node", "postman.mjs", "openapi.json", postmanImport)
	// --suppress-exit-code: the refused requests are judged below;
	// check.Run's timeout fails the test if the run does not end.
	check.Run(t, f.dir, 5*time.Minute, nil, check.Bin("newman"), "run", "collection.json",
		"--env-var", "bearerToken="+f.p.Key, "--timeout-request", "10000", "--suppress-exit-code",
		"--reporters", "json", "--reporter-json-export", "run.json")

	raw, err := os.ReadFile(filepath.Join(f.dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Run struct {
			Executions []struct {
				Item    struct{ Name string } `json:"item"`
				Request struct {
					Method string `json:"method"`
				} `json:"request"`
				Response *struct {
					Code   int `json:"code"`
					Stream struct {
						Data []int `json:"data"` // a Node.js Buffer's bytes
					} `json:"stream"`
				} `json:"response"`
				RequestError *struct {
					Code string `json:"code"`
				} `json:"requestError"`
			} `json:"executions"`
		} `json:"run"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatal(err)
	}
	ok, refused := 0, 0
	var wrong []string
	for _, e := range report.Run.Executions {
		name := e.Request.Method + " " + e.Item.Name
		status, answer := 0, ""
		if e.Response != nil {
			body := make([]byte, len(e.Response.Stream.Data))
			for i, c := range e.Response.Stream.Data {
				body[i] = byte(c)
			}
			status, answer = e.Response.Code, string(body)
		} else if e.RequestError != nil {
			answer = e.RequestError.Code
		}
		want, why := 200, ""
		for _, r := range refusedByRule {
			if r.request.MatchString(name) {
				want, why = r.status, r.why
				break
			}
		}
		switch {
		case why == "" && status >= 200 && status < 300:
			ok++
		case why != "" && status == want && (want != 0 || answer == "ESOCKETTIMEDOUT"):
			refused++
		case why == "":
			wrong = append(wrong, fmt.Sprintf("%s: %d, want 2xx: %.300s", name, status, answer))
		default:
			wrong = append(wrong, fmt.Sprintf("%s: %d, want %d (%s): %.300s", name, status, want, why, answer))
		}
	}
	total := len(report.Run.Executions)
	t.Logf("%d of %d requests 2xx, %d refused by rule", ok, total, refused)
	if total < 70 {
		t.Errorf("newman ran %d requests, want every operation of the document (76)", total)
	}
	if len(wrong) > 0 {
		t.Errorf("%d of %d requests did not answer as they should:\n%s", len(wrong), total, strings.Join(wrong, "\n"))
	}
}
