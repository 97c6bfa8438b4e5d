package files

import (
	"crypto/rand"
	"encoding/base32"
	"path"
	"strings"

	"github.com/gabriel-vasile/mimetype"

	"github.com/tablesmith/tablesmith/schema"
)

// lowerBase32 spells the random part of a name: lower-case letters and
// digits, safe in a URL segment and on every file system.
var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewName names a stored file after the name the client gave it (as a
// safe stem), a random part that makes it unique in the project and
// unguessable, and the extension of its sniffed media type:
// "Holiday Photo.JPG" as image/jpeg becomes "holiday_photo_4kq7…x2.jpg".
func NewName(original, mediaType string) string {
	var random [10]byte
	if _, err := rand.Read(random[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return safeStem(original) + "_" + lowerBase32.EncodeToString(random[:]) + extensionOf(mediaType, original)
}

// maxStem bounds the part of a name taken from the client's.
const maxStem = 48

// safeStem keeps letters, digits, '-' and '_' of the client's name
// without its extension, lower-cased, other runs as one '_'; "file" when
// nothing is left.
func safeStem(original string) string {
	base := path.Base(strings.ReplaceAll(original, "\\", "/"))
	base = strings.TrimSuffix(base, path.Ext(base))
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(base) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-'
		switch {
		case ok:
			b.WriteRune(r)
			underscore = false
		case !underscore && b.Len() > 0:
			b.WriteByte('_')
			underscore = true
		}
		if b.Len() >= maxStem {
			break
		}
	}
	stem := strings.Trim(b.String(), "_-")
	if stem == "" {
		return "file"
	}
	return stem
}

// extensionOf is the extension of the sniffed media type; for a type
// sniffing names only generically (text/plain, application/octet-stream)
// the client's extension is kept if it is short and plain.
func extensionOf(mediaType, original string) string {
	if m := mimetype.Lookup(mediaType); m != nil && m.Extension() != "" && mediaType != "text/plain" && mediaType != "application/octet-stream" {
		return m.Extension()
	}
	ext := strings.ToLower(path.Ext(original))
	if len(ext) < 2 || len(ext) > 9 {
		return ""
	}
	for _, r := range ext[1:] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return ext
}

// ValidName reports whether name could be one NewName made: the URL
// segment of a download is checked before anything is looked up.
func ValidName(name string) bool {
	if name == "" || len(name) > schema.MaxFileNameLength || strings.HasPrefix(name, ".") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
