package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
)

// Sign in with providers (docs/end-user-auth.md): the public list, the
// authorize and callback redirects a browser follows, and the exchange of
// the one-time code for a session.

// Component names and operation ids of the provider sign-in (reserved in
// fixedComponentNames; named so that no table's derived names are likely
// to meet them).
const (
	schemaSignInProvider     = "SignInProvider"
	schemaSignInProviderList = "SignInProviderList"
	schemaSignInCode         = "SignInCodeRequest"

	opSignInProviders    = "signInProviders"
	opSignInWithProvider = "signInWithProvider"
	opSignInCallback     = "signInProviderCallback"
	opSignInExchange     = "exchangeSignInCode"
)

// providerSchemas adds the provider sign-in's component schemas.
func providerSchemas(schemas *orderedmap.Map[string, *base.SchemaProxy]) {
	provider := orderedmap.New[string, *base.SchemaProxy]()
	provider.Set("name", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Description: "The provider's name in its URLs.",
		Examples: []*yaml.Node{str("google")}}))
	provider.Set("kind", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Enum:        []*yaml.Node{str("oidc"), str("google"), str("microsoft"), str("apple"), str("github")},
		Description: "What kind of provider it is, for the button's label and icon."}))
	schemas.Set(schemaSignInProvider, closedObject(provider, "An enabled sign-in provider."))
	schemas.Set(schemaSignInProviderList, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxy(&base.Schema{
		Type: types("array"), Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxyRef(schemaRef(schemaSignInProvider))}}),
		false, "The project's enabled sign-in providers.")))
	code := orderedmap.New[string, *base.SchemaProxy]()
	code.Set("code", tokenString("The one-time code the callback appended to redirect_to (valid 60 seconds, once).", false))
	schemas.Set(schemaSignInCode, closedObject(code, "A one-time code from a provider sign-in."))
}

// providerPaths adds /auth/providers, its authorize and callback steps
// and /auth/providers/exchange.
func providerPaths(paths *orderedmap.Map[string, *v3.PathItem]) {
	tags := []string{authTag}
	name := &v3.Parameter{Name: "name", In: "path", Required: ptr(true), Description: "The provider's name.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Pattern: "^[a-z][a-z0-9-]*$"})}
	location := func(desc string) *v3.Response {
		h := rateHeaders()
		h.Set("Location", &v3.Header{Description: desc, Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "uri"})})
		return &v3.Response{Description: desc, Headers: h}
	}

	paths.Set("/auth/providers", &v3.PathItem{Get: &v3.Operation{Tags: tags, OperationId: opSignInProviders,
		Summary:     "List the sign-in providers",
		Description: "The providers the project's owner configured and enabled, for an app's sign-in buttons.",
		Security:    anonymous(),
		Responses: responses("200", successResponse("The enabled providers.", schemaSignInProviderList, rateHeaders()),
			respRateLimited, respInternal, respUnavailable)}})

	authorize := responses("302", location("The provider's authorization endpoint, with state, nonce and PKCE (S256)."))
	authorize.Codes.Set("400", errorResponse("redirect_to is missing, not an absolute URL, or of an origin the project does not list; or another query parameter was sent.", nil,
		errorExample{"redirect_to", "redirect_to not allowed", apierr.CodeValidation, "Validation failed",
			map[string]string{"redirect_to": "its origin https://evil.example must be listed in the project's allowed origins"}}))
	addErrors(authorize.Codes, respNotFound, respRateLimited, respInternal, respUnavailable)
	paths.Set("/auth/providers/{name}/authorize", &v3.PathItem{Parameters: []*v3.Parameter{name}, Get: &v3.Operation{Tags: tags,
		OperationId: opSignInWithProvider,
		Summary:     "Start a sign-in with a provider",
		Description: "Open this URL in the browser (a link or a redirect, not fetch): it redirects to the provider. After the user " +
			"signs in there, the browser returns to redirect_to with `?code=<one-time code>` (trade it at /auth/providers/exchange) " +
			"or `?error=<code>&error_description=<text>`. A provider that is unknown or disabled is 404.",
		Parameters: []*v3.Parameter{{Name: "redirect_to", In: "query", Required: ptr(true),
			Description: "The page of your app that receives the result; its origin must be one of the project's allowed origins.",
			Schema:      base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "uri"}),
			Example:     str("https://app.example.com/signed-in")}},
		Security: anonymous(), Responses: authorize}})

	callback := responses("302", location("redirect_to with `?code=<one-time code>`, or with `?error=<code>&error_description=<text>` "+
		"(access_denied and other provider errors, exchange_failed, invalid_id_token, email_missing, email_not_verified, "+
		"account_inactive, signup_incomplete, server_error)."))
	callback.Codes.Set("400", errorResponse("The state is missing, unknown, already used or older than 10 minutes: there is nowhere safe to return to.", nil,
		errorExample{"state", "Used state", apierr.CodeValidation, "This sign-in is unknown or was already finished; start it again",
			map[string]string{"state": "is unknown or already used"}}))
	addErrors(callback.Codes, respNotFound, respRateLimited, respInternal, respUnavailable)
	paths.Set("/auth/providers/{name}/callback", &v3.PathItem{Parameters: []*v3.Parameter{name}, Get: &v3.Operation{Tags: tags,
		OperationId: opSignInCallback,
		Summary:     "Where the provider returns",
		Description: "The redirect URI to register at the provider; the provider sends the browser here, never an app. " +
			"(Apple returns with a form POST to the same URL.)",
		Parameters: []*v3.Parameter{
			{Name: "code", In: "query", Description: "The provider's authorization code.", Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})},
			{Name: "state", In: "query", Required: ptr(true), Description: "The state this sign-in started with.",
				Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})},
			{Name: "error", In: "query", Description: "The provider's error, when the user did not sign in.",
				Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})},
		},
		Security: anonymous(), Responses: callback}})

	exchange := responses("200", successResponse("The user and fresh tokens, as /auth/login answers.", schemaSessionResp, rateHeaders()),
		respBadBody)
	exchange.Codes.Set("401", errorResponse("The code is unknown, already used or older than 60 seconds, or its user was deleted.", nil,
		errorExample{"used_code", "Used code", apierr.CodeUnauthorized, "Invalid sign-in code: it is unknown, was already used or is older than 60 seconds", nil}))
	exchange.Codes.Set("403", errorResponse("The user exists but is not active.", nil,
		errorExample{"inactive", "Inactive user", apierr.CodeForbidden, "This account is not active", nil}))
	addErrors(exchange.Codes, respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable)
	paths.Set("/auth/providers/exchange", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opSignInExchange,
		Summary:     "Trade a provider sign-in's code for tokens",
		Description: "The session is the same as a password login's: refresh and sign out as usual.",
		RequestBody: jsonBodyWith("The one-time code.", schemaSignInCode, valueNode(map[string]any{"code": "tsc_4mB0x7m0rF2kQ9cW1yJ8pL3nR6tV5sZ0aE2dG4hK7uI"})),
		Security:    anonymous(), Responses: exchange}})
}
