package cachehandler

import "testing"

func TestProjectOfReadsTheProjectIDFromACacheKey(t *testing.T) {
	for key, want := range map[string]string{
		"GET-http-127.0.0.1:8080-/v1/1a2b3c4d5e6f/books/1{-VARY-}Authorization:":       "1a2b3c4d5e6f",
		"GET-https-example.com-/v1/1a2b3c4d5e6f/books?limit=20&include=author":         "1a2b3c4d5e6f",
		"HEAD-http-example.com-/v1/1a2b3c4d5e6f/books/aggregate?count=*{-VARY-}Accept": "1a2b3c4d5e6f",
		"GET-http-example.com-/assets/app.js":                                          "",
		"12345678901234567890":                                                         "",
	} {
		if got := projectOf(key); got != want {
			t.Errorf("projectOf(%q) = %q, want %q", key, got, want)
		}
	}
}
