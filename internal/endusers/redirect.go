package endusers

import (
	"net/url"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/registry"
)

// RedirectTarget checks a redirect_to that an end-user flow was given (the
// page a reset or verification link opens, where a provider sign-in
// returns). "" means none: the flow uses Tablesmith's hosted page. Any
// other value must be an absolute http(s) URL, without user info or
// fragment, whose origin is listed explicitly in the project's allowed
// origins (Settings → CORS). A project that allows any origin allows no
// redirect: a link carrying a single-use token to a page of anyone's
// choosing would hand the token to whoever wrote the request.
func RedirectTarget(entry *registry.Entry, raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	bad := func(why string) error {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"redirect_to": why})
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, bad("must be an absolute http or https URL such as https://app.example.com/reset")
	}
	if u.User != nil || u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return nil, bad("must not contain user info or a fragment")
	}
	origin := u.Scheme + "://" + strings.ToLower(u.Host)
	if !entry.CORS.Restricted() || !entry.CORS.Allows(origin) {
		return nil, bad("its origin " + origin + " must be listed in the project's allowed origins (Settings → CORS; \"any origin\" allows no redirect)")
	}
	return u, nil
}
