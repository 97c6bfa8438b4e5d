// Package jsonbody reads JSON request bodies for both HTTP APIs with one
// set of rules: Content-Type application/json (415), a size limit (413),
// exactly one JSON value, valid UTF-8 without lone UTF-16 surrogates, and
// no duplicate keys in any object (400 INVALID_JSON). Go's decoder would
// store invalid UTF-8 and lone surrogates as U+FFFD and let the last of
// two equal keys win; Check refuses both before decoding.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
)

// MsgNotObject is the message of a body that is not one JSON object
// (a caller may say more precisely what it wanted).
const MsgNotObject = "The body must be a JSON object"

// Read checks the media type, reads at most max bytes of the body and
// checks them with Check (NUL characters allowed).
func Read(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	return read(w, r, max, false)
}

// readNoNUL is Read that also refuses the NUL character (\u0000) in any
// string or key, as a VALIDATION_ERROR naming its path: PostgreSQL text
// cannot hold it.
func readNoNUL(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	return read(w, r, max, true)
}

func read(w http.ResponseWriter, r *http.Request, max int64, noNUL bool) ([]byte, error) {
	if !isJSON(r.Header.Get("Content-Type")) {
		return nil, apierr.New(apierr.CodeUnsupportedMedia, "The body must be JSON with Content-Type: application/json")
	}
	raw, err := readAll(w, r, max)
	if err != nil {
		return nil, err
	}
	if err := check(raw, noNUL); err != nil {
		return nil, err
	}
	return raw, nil
}

// isJSON reports whether a Content-Type is application/json, with or
// without parameters; the plain form, which most clients send, without
// parsing it.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// readAll reads at most max bytes of the body.
func readAll(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierr.New(apierr.CodePayloadTooLarge, "The body is larger than %d bytes", max)
		}
		return nil, apierr.New(apierr.CodeInvalidJSON, "The body could not be read")
	}
	return raw, nil
}

// Object reads a body that must be one JSON object, decoded with
// UseNumber (the generated API's table writes and auth routes).
func Object(w http.ResponseWriter, r *http.Request, max int64) (map[string]any, error) {
	raw, err := Read(w, r, max)
	if err != nil {
		return nil, err
	}
	return decodeObject(raw)
}

// Decode reads a body that must be one JSON object into v, refusing
// fields v does not have and NUL characters (the platform API). A field
// of the wrong type or unknown is a VALIDATION_ERROR naming it.
func Decode(w http.ResponseWriter, r *http.Request, max int64, v any) error {
	raw, err := readNoNUL(w, r, max)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{ute.Field: "has the wrong type"})
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{strings.Trim(f, `"`): "unknown field"})
		}
		return apierr.New(apierr.CodeInvalidJSON, MsgNotObject)
	}
	if _, err := dec.Token(); err != io.EOF {
		return apierr.New(apierr.CodeInvalidJSON, "The body must be a single JSON object")
	}
	return nil
}
