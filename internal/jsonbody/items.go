package jsonbody

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/tablesmith/tablesmith/apierr"
)

// ObjectOrItems reads a body that is one JSON object or an array of JSON
// objects (a bulk create), by the rules of Object. Exactly one of object
// and items is set; an array element that is not an object is a
// VALIDATION_ERROR keyed by its position.
func ObjectOrItems(w http.ResponseWriter, r *http.Request, max int64) (object map[string]any, items []map[string]any, err error) {
	raw, err := Read(w, r, max)
	if err != nil {
		return nil, nil, err
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		object, err = decodeObject(raw)
		return object, nil, err
	}
	if items, ok := fastItems(raw); ok {
		return nil, items, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var elems []json.RawMessage
	if err := dec.Decode(&elems); err != nil {
		return nil, nil, apierr.New(apierr.CodeInvalidJSON, "The body must be a JSON object or an array of JSON objects")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, apierr.New(apierr.CodeInvalidJSON, "The body must be a single JSON array")
	}
	items = make([]map[string]any, len(elems))
	problems := map[string]string{}
	for i, e := range elems {
		d := json.NewDecoder(bytes.NewReader(e))
		d.UseNumber()
		if err := d.Decode(&items[i]); err != nil || items[i] == nil {
			problems[strconv.Itoa(i)] = "must be a JSON object"
		}
	}
	if len(problems) > 0 {
		return nil, nil, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	return nil, items, nil
}

// decodeObject decodes a checked body that must be one JSON object.
func decodeObject(raw []byte) (map[string]any, error) {
	if obj, ok := fastObject(raw); ok {
		return obj, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, apierr.New(apierr.CodeInvalidJSON, MsgNotObject)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apierr.New(apierr.CodeInvalidJSON, "The body must be a single JSON object")
	}
	return body, nil
}
