package files

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// TokenLifetime is how long an upload token may be used: well inside
// Grace, so that no sweep takes an upload whose token is still good.
const TokenLifetime = 30 * time.Minute

// Upload is what an upload token stands for: a file stored for one file
// column of one table of one project, until Expires.
type Upload struct {
	Project string            `json:"p"`
	Table   string            `json:"t"`
	Column  string            `json:"c"`
	File    schema.StoredFile `json:"f"`
	Expires int64             `json:"e"` // Unix seconds
}

// ErrBadToken is a token the server did not sign, for another column, or
// expired; the message says which for the client.
var ErrBadToken = errors.New("files: bad upload token")

// Sign makes the token of u: its JSON and an HMAC-SHA256 of it with key,
// both base64url, joined by '.'. It holds no secret; it only cannot be
// forged or changed.
func Sign(key []byte, u Upload) string {
	payload, _ := json.Marshal(u)
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(mac(key, body))
}

func mac(key []byte, body string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// Verify reads a token for column column of table of project. It answers
// a problem message for the client with ErrBadToken.
func Verify(key []byte, token, project, table, column string, now time.Time) (Upload, string, error) {
	body, sig, ok := strings.Cut(token, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, mac(key, body)) {
		return Upload{}, "is not an upload token this server made", ErrBadToken
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	var u Upload
	if err != nil || json.Unmarshal(payload, &u) != nil {
		return Upload{}, "is not an upload token this server made", ErrBadToken
	}
	switch {
	case u.Project != project:
		return Upload{}, "is an upload token of another project", ErrBadToken
	case u.Table != table || u.Column != column:
		return Upload{}, "is an upload token for another column (" + u.Table + "." + u.Column + ")", ErrBadToken
	case now.Unix() > u.Expires:
		return Upload{}, "is an upload token that expired: upload the file again", ErrBadToken
	case !ValidName(u.File.Name):
		return Upload{}, "is not an upload token this server made", ErrBadToken
	}
	return u, "", nil
}

// Claim turns the upload tokens a write's body gives for its file
// columns (a string for a file column, strings for a files column; from
// JSON, or a multipart text part) into the files the row will hold. Each
// use of a token gets its own copy of the upload, so that two rows never
// share a stored file and removing one never takes the other's. The keys
// of the copies come back for the caller to remove if the write does not
// commit; a token that is not good is a problem naming its field.
func Claim(ctx context.Context, store Store, key []byte, project string, t *schema.CTable, body map[string]any, now time.Time) (claimed []string, problems map[string]string, err error) {
	claim := func(c *schema.CColumn, token string) (schema.StoredFile, bool, error) {
		u, msg, verr := Verify(key, token, project, t.Name, c.Name, now)
		if verr != nil {
			if problems == nil {
				problems = map[string]string{}
			}
			problems[c.Input] = msg
			return schema.StoredFile{}, false, nil
		}
		f := u.File
		f.Name = NewName(stemOf(u.File.Name), u.File.Type)
		if err := store.Copy(ctx, Key(project, u.File.Name), Key(project, f.Name)); err != nil {
			if errors.Is(err, ErrNotFound) {
				if problems == nil {
					problems = map[string]string{}
				}
				problems[c.Input] = "is an upload token whose file is gone: upload the file again"
				return schema.StoredFile{}, false, nil
			}
			return schema.StoredFile{}, false, err
		}
		claimed = append(claimed, Key(project, f.Name))
		return f, true, nil
	}
	for _, c := range t.Writable {
		if !c.Kind.Traits.Upload {
			continue
		}
		switch v := body[c.Input].(type) {
		case string:
			if f, ok, err := claim(c, v); err != nil {
				return claimed, nil, err
			} else if ok {
				body[c.Input] = f
			}
		case schema.FileUpload:
			if f, ok, err := claim(c, string(v)); err != nil {
				return claimed, nil, err
			} else if ok {
				body[c.Input] = f
			}
		case []any:
			if !c.Kind.Traits.Many {
				continue
			}
			list := make([]schema.StoredFile, 0, len(v))
			for _, item := range v {
				token, isString := item.(string)
				if !isString {
					list = nil
					break // not a list of tokens: the check says so
				}
				f, ok, err := claim(c, token)
				if err != nil {
					return claimed, nil, err
				}
				if ok {
					list = append(list, f)
				}
			}
			if list != nil && len(list) == len(v) {
				body[c.Input] = list
			}
		}
	}
	return claimed, problems, nil
}

// stemOf is a stored name without its random part: what the client
// called the file, for the name of a copy.
func stemOf(name string) string {
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	if i := strings.LastIndexByte(base, '_'); i > 0 {
		base = base[:i]
	}
	return base + ext
}

// Bounds of a signed download URL's lifetime.
const (
	DefaultURLLifetime = time.Hour
	MaxURLLifetime     = 7 * 24 * time.Hour
)

// URLSignature signs the download path of a file until expires (Unix
// seconds): a signed URL opens that one file without a credential. The
// "url" prefix keeps it apart from upload tokens, which share the key.
func URLSignature(key []byte, path string, expires int64) string {
	return base64.RawURLEncoding.EncodeToString(mac(key, "url|"+path+"|"+strconv.FormatInt(expires, 10)))
}

// ValidURLSignature reports whether signature signs path until expires,
// and expires has not passed.
func ValidURLSignature(key []byte, path string, expires int64, signature string, now time.Time) bool {
	got, err := base64.RawURLEncoding.DecodeString(signature)
	return err == nil && now.Unix() <= expires && hmac.Equal(got, mac(key, "url|"+path+"|"+strconv.FormatInt(expires, 10)))
}
