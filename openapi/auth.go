package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

// authTag groups the end-user auth operations.
const authTag = "auth"

// Component names of the auth group (reserved in fixedComponentNames).
const (
	schemaSession      = "AuthSession"
	schemaSessionResp  = "AuthSessionResponse"
	schemaRegistration = "AuthRegistration"
	schemaRegisterResp = "AuthRegisterResponse"
	schemaLogin        = "LoginRequest"
	schemaRefresh      = "RefreshRequest"
	schemaLogout       = "LogoutRequest"
)

// tokenString is a non-empty string field of the auth bodies: the server
// reads exactly the named strings and refuses empty ones.
func tokenString(desc string, writeOnly bool) *base.SchemaProxy {
	s := &base.Schema{Type: types("string"), MinLength: ptr(int64(1)), Description: desc}
	if writeOnly {
		s.Format, s.WriteOnly = "password", ptr(true)
	}
	return base.CreateSchemaProxy(s)
}

// closedObject is an object of required properties and nothing else.
func closedObject(props *orderedmap.Map[string, *base.SchemaProxy], desc string) *base.SchemaProxy {
	var required []string
	for k := range props.KeysFromOldest() {
		required = append(required, k)
	}
	return base.CreateSchemaProxy(&base.Schema{Type: types("object"), Description: desc, Properties: props,
		Required: required, AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: false}})
}

// authSchemas adds the auth group's component schemas.
func authSchemas(schemas *orderedmap.Map[string, *base.SchemaProxy], n tableNames) {
	text := func(desc string) *base.SchemaProxy {
		return base.CreateSchemaProxy(&base.Schema{Type: types("string"), Description: desc})
	}
	session := orderedmap.New[string, *base.SchemaProxy]()
	session.Set("user", base.CreateSchemaProxyRef(schemaRef(n.Record)))
	session.Set("access_token", text("A short-lived JWT for Authorization: Bearer, valid for this project only."))
	session.Set("token_type", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Const: str("Bearer")}))
	session.Set("expires_in", base.CreateSchemaProxy(&base.Schema{Type: types("integer"),
		Description: "Seconds until the access token expires."}))
	session.Set("refresh_token", text("Trades for a new pair at /auth/refresh, once."))
	session.Set("email_verified", emailVerifiedProp())
	schemas.Set(schemaSession, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: session,
		Description: "A signed-in end user with their tokens.",
		Required:    []string{"user", "access_token", "token_type", "expires_in", "refresh_token", "email_verified"}}))
	schemas.Set(schemaSessionResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(schemaSession)), false,
		"A signed-in end user with their tokens, in the success envelope.")))

	// One object for both outcomes, the tokens optional, rather than
	// anyOf a session and a pending user: generators that tell variants
	// apart by JSON type (ogen) cannot split two objects.
	registered := orderedmap.New[string, *base.SchemaProxy]()
	for k, v := range session.FromOldest() {
		registered.Set(k, v)
	}
	schemas.Set(schemaRegistration, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: registered,
		Description: "A registered end user: with their tokens when the account is active; the user alone (no tokens until " +
			"someone activates them) when the auth table's is_active defaults to false, or until they verify their address " +
			"when the auth table requires e-mail verification.",
		Required: []string{"user", "email_verified"}, AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: false}}))
	schemas.Set(schemaRegisterResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(schemaRegistration)),
		false, "The registered user, signed in when the account is active.")))

	login := orderedmap.New[string, *base.SchemaProxy]()
	login.Set("email", base.CreateSchemaProxy(&base.Schema{Type: types("string"), MinLength: ptr(int64(1)),
		Examples: []*yaml.Node{str("user@example.com")}, Description: "Compared trimmed and lower-cased."}))
	login.Set("password", tokenString("", true))
	schemas.Set(schemaLogin, closedObject(login, "An end user's e-mail and password."))

	refresh := orderedmap.New[string, *base.SchemaProxy]()
	refresh.Set("refresh_token", tokenString("The refresh token of the last sign-in or refresh.", false))
	schemas.Set(schemaRefresh, closedObject(refresh, "A refresh token to trade for a new pair."))
	logout := orderedmap.New[string, *base.SchemaProxy]()
	logout.Set("refresh_token", tokenString("The refresh token of the session to end.", false))
	schemas.Set(schemaLogout, closedObject(logout, "The session to end, by its refresh token."))
}

// authPaths adds /auth/register, /login, /refresh, /logout and /me.
func authPaths(paths *orderedmap.Map[string, *v3.PathItem], auth *schema.CTable, n tableNames) {
	tags := []string{authTag}
	sessionOK := func(desc string) *v3.Response {
		return successResponse(desc, schemaSessionResp, rateHeaders())
	}
	tail := []string{respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable}

	register := responses("201", successResponse("The new user, with tokens when the account is active.", schemaRegisterResp, rateHeaders()),
		respBadBody, respConflict)
	addErrors(register.Codes, tail...)
	paths.Set("/auth/register", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opRegister,
		Summary: "Register an end user",
		Description: "Creates a record in " + auth.Name + " from the body, validated like a create of that table, and signs the user in. " +
			"A user who is not active yet gets no tokens. A taken e-mail is 409 CONFLICT.",
		RequestBody: jsonBodyWith("The new user: the "+auth.Name+" table's fields.", n.Create, registerExample(auth)), Security: anonymous(),
		Responses: register}})

	login := responses("200", sessionOK("The user and fresh tokens."), respBadBody)
	login.Codes.Set("401", errorResponse("The e-mail and password do not match a user.", nil,
		errorExample{"invalid_credentials", "Wrong e-mail or password", apierr.CodeInvalidCreds, "Invalid e-mail or password", nil}))
	login.Codes.Set("403", errorResponse("The user exists but is not active, or has not verified the address where the project requires it.", nil,
		errorExample{"inactive", "Inactive user", apierr.CodeForbidden, "This account is not active", nil},
		errorExample{"email_not_verified", "Unverified address", apierr.CodeEmailNotVerified,
			"Confirm your e-mail address first: follow the link sent to it, or ask for a new one at /auth/verify-email/resend", nil}))
	addErrors(login.Codes, respTooLarge, respMediaType)
	login.Codes.Set("429", errorResponse("Too many requests for the plan, or too many failed sign-ins for this e-mail or address.",
		withRetryAfter(rateHeaders()),
		errorExample{"too_many_attempts", "Too many failed sign-ins", apierr.CodeTooManyAttempts, "Too many failed logins; try again in 60 seconds", nil},
		errorExample{"rate_limited", "Plan limit reached", apierr.CodeRateLimited, "Rate limit of the free plan reached (100 requests per hour)", nil}))
	addErrors(login.Codes, respInternal, respUnavailable)
	paths.Set("/auth/login", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opLogin,
		Summary:     "Sign an end user in",
		Description: "A wrong e-mail or password is 401 INVALID_CREDENTIALS; repeated failures are throttled (429 TOO_MANY_ATTEMPTS with Retry-After).",
		RequestBody: jsonBodyWith("The user's e-mail and password.", schemaLogin, loginExample(auth)), Security: anonymous(),
		Responses: login}})

	refresh := responses("200", sessionOK("The user and a new pair of tokens."), respBadBody, respUnauthorized, respForbidden)
	addErrors(refresh.Codes, tail...)
	paths.Set("/auth/refresh", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opRefresh,
		Summary: "Trade a refresh token for a new pair",
		Description: "The presented refresh token stops working. Presenting it again revokes its whole session " +
			"(a copied token); a user who is no longer active gets 403.",
		RequestBody: jsonBody("The refresh token.", schemaRefresh), Security: anonymous(),
		Responses: refresh}})

	logoutBody := jsonBody("The refresh token of the session to end; without a body, the session of the access token sent.", schemaLogout)
	logoutBody.Required = ptr(false)
	logout := responses("200", successResponse("The session is ended: its refresh and access tokens stop working.", schemaMessage, rateHeaders()),
		respBadBody, respUnauthorized, respForbidden)
	addErrors(logout.Codes, tail...)
	paths.Set("/auth/logout", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opLogout,
		Summary:     "Sign out",
		Description: "Ends the session of the refresh token in the body, or, with no body, the session of the end-user access token sent.",
		RequestBody: logoutBody, Security: security(schema.LevelPublic),
		Responses: logout}})

	paths.Set("/auth/me", &v3.PathItem{Get: &v3.Operation{Tags: tags, OperationId: opMe,
		Summary:     "The signed-in end user",
		Description: "Needs an end-user access token; an API key is 403 (it belongs to no user).",
		Security:    security(schema.LevelAuthenticated),
		Responses: responses("200", successResponse("The current user.", n.Response, rateHeaders()),
			respUnauthorized, respForbidden, respRateLimited, respInternal, respUnavailable)}})
}

// messageSchema is a success answer that carries only a message.
func messageSchema() *base.Schema {
	return successSchema(base.CreateSchemaProxy(&base.Schema{Type: types("null")}), false, "A success answer without data.")
}
