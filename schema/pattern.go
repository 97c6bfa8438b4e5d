package schema

import (
	"regexp"
	"sync"
)

var patterns sync.Map // pattern string → *regexp.Regexp

// patternCache compiles a column pattern once per process; patterns come
// only from published documents, so the set is bounded by what users design.
func patternCache(p string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	patterns.Store(p, re)
	return re, nil
}
