package schemafuzz

// What every answer must be: the contract's envelope, errors that name
// only what the request has, no 400 for a request the rules accept.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// answer is a decoded envelope.
type answer struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Meta    json.RawMessage `json:"meta"`
	Error   *struct {
		Code    string            `json:"code"`
		Message string            `json:"message"`
		Details map[string]string `json:"details"`
	} `json:"error"`
}

// statusOf is the status of each error code of the contract.
var statusOf = map[string]int{
	"VALIDATION_ERROR": 400, "INVALID_JSON": 400, "INVALID_QUERY": 400, "UNAUTHORIZED": 401, "FORBIDDEN": 403,
	"PLAN_LIMIT": 403, "NOT_FOUND": 404, "METHOD_NOT_ALLOWED": 405, "CONFLICT": 409, "PAYLOAD_TOO_LARGE": 413,
	"UNSUPPORTED_MEDIA_TYPE": 415, "RATE_LIMITED": 429,
}

// envelope checks an answer's shape: a success with data, or an error
// whose code goes with its status and whose details are all strings. A
// 5xx is a failure whatever its shape.
func envelope(status int, raw []byte) (*answer, *failure) {
	if status >= 500 {
		return nil, &failure{Kind: fmt.Sprintf("status %d", status), Detail: string(raw)}
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &failure{Kind: "answer is not an envelope", Detail: fmt.Sprintf("%d %s", status, raw)}
	}
	if status < 300 {
		if !a.Success || a.Data == nil {
			return nil, &failure{Kind: "success without data", Detail: fmt.Sprintf("%d %s", status, raw)}
		}
		return &a, nil
	}
	if a.Success || a.Error == nil || a.Error.Message == "" || statusOf[a.Error.Code] != status {
		return nil, &failure{Kind: "error outside the envelope", Detail: fmt.Sprintf("%d %s", status, raw)}
	}
	return &a, nil
}

// unexpectedDetails is a details key that names nothing of the request:
// the error is about something the client did not send.
func unexpectedDetails(a *answer, allowed func(key string) bool) *failure {
	if a.Error == nil {
		return nil
	}
	for k := range a.Error.Details {
		if !allowed(k) {
			return &failure{Kind: "error names a field the request does not have", Detail: fmt.Sprintf("%s: %v", a.Error.Code, a.Error.Details)}
		}
	}
	return nil
}

// fieldsAllowed admits the table's fields and the body's, with an item
// position before them for a bulk ("3.email", "3"), and "body". A bulk's
// unique or reference violation names the field alone, as a single
// create's does (docs/query-language.md): the database does not say
// which item it was.
func fieldsAllowed(t *schema.CTable, items int, bulk bool) func(string) bool {
	return func(k string) bool {
		field := k
		if pos, rest, found := strings.Cut(k, "."); bulk && found {
			n, err := strconv.Atoi(pos)
			if err != nil || n < 0 || n >= items {
				return false
			}
			field = rest
		} else if n, err := strconv.Atoi(k); bulk && err == nil {
			return n >= 0 && n < items
		}
		_, isInput := t.Inputs[field]
		return isInput || field == "no_such_field" || field == "body"
	}
}

// refusedValid fails a 400 on a request whose every value the table
// accepts: the server refused what it should have taken.
func (x *execution) refusedValid(valid bool, status int, raw []byte) *failure {
	if valid && status == 400 {
		return &failure{Kind: "a valid request was refused", Detail: string(raw)}
	}
	return nil
}

// queryAllowed admits the parameters a request sent.
func queryAllowed(q url.Values) func(string) bool {
	return func(k string) bool { _, sent := q[k]; return sent }
}
