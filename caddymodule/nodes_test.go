package caddymodule_test

// What the tests of whole nodes coming and going (drain_test.go,
// rolling_test.go) share: a realtime stream read as events, and a create
// of the "events" table they write to.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// sseEvent is one event of a realtime stream.
type sseEvent struct {
	id   int64
	name string
	data map[string]any
}

// readEvents calls each for every event of a Server-Sent Events body (id
// -1 when it has none) until the body ends.
func readEvents(body io.Reader, each func(sseEvent)) {
	sc := bufio.NewScanner(body)
	ev := sseEvent{id: -1}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				each(ev)
			}
			ev = sseEvent{id: -1}
		case strings.HasPrefix(line, "id: "):
			ev.id, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(line[6:]), &ev.data)
		}
	}
}

// createdN is the n of a create event's record (-1 for other events).
func createdN(ev sseEvent) int {
	rec, _ := ev.data["record"].(map[string]any)
	n, ok := rec["n"].(float64)
	if ev.name != "create" || !ok {
		return -1
	}
	return int(n)
}

// createEvent creates the events row n through base, with an
// Idempotency-Key when idempotencyKey is not empty.
func createEvent(client *http.Client, base, project, key string, n int, idempotencyKey string) (status int, body []byte, err error) {
	return postJSON(client, base+"/v1/"+project+"/events", key, fmt.Sprintf(`{"n": %d}`, n), idempotencyKey)
}

// postJSON posts a JSON body with a key, and an Idempotency-Key when
// idempotencyKey is not empty.
func postJSON(client *http.Client, url, key, payload, idempotencyKey string) (status int, body []byte, err error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(payload))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err = io.ReadAll(res.Body)
	return res.StatusCode, body, err
}
