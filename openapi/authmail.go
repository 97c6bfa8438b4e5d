package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

// Component names of the auth routes that mail a link (reserved in
// fixedComponentNames).
const (
	schemaMailLink       = "MailLinkRequest"
	schemaResetConfirm   = "PasswordResetConfirmRequest"
	schemaMailToken      = "MailTokenRequest"
	schemaEmailChange    = "EmailChangeRequest"
	schemaEmailVerified  = "EmailVerification"
	schemaEmailVerifResp = "EmailVerificationResponse"
)

// Operation ids of those routes.
const (
	opResetRequest  = "requestPasswordReset"
	opResetConfirm  = "confirmPasswordReset"
	opVerifyEmail   = "verifyEmail"
	opVerifyResend  = "resendVerificationEmail"
	opChangeRequest = "requestEmailChange"
	opChangeConfirm = "confirmEmailChange"
)

// emailVerifiedProp is the email_verified field of session answers.
func emailVerifiedProp() *base.SchemaProxy {
	return base.CreateSchemaProxy(&base.Schema{Type: types("boolean"),
		Description: "Whether the user proved they read the account's current e-mail address (a verification, reset or e-mail change link)."})
}

// redirectProp is the optional redirect_to of the mailing routes.
func redirectProp() *base.SchemaProxy {
	return base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "uri",
		Examples: []*yaml.Node{str("https://app.example.com/reset")},
		Description: "The page the link opens, with token and type added to its query. Its origin must be listed in the project's " +
			"allowed origins (not \"any origin\"). Without it the link opens Tablesmith's hosted page."})
}

// objectOf is an object of the given properties, the named ones
// required, and nothing else.
func objectOf(props *orderedmap.Map[string, *base.SchemaProxy], desc string, required ...string) *base.SchemaProxy {
	return base.CreateSchemaProxy(&base.Schema{Type: types("object"), Description: desc, Properties: props,
		Required: required, AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: false}})
}

// authMailSchemas adds the component schemas of the mailing routes.
func authMailSchemas(schemas *orderedmap.Map[string, *base.SchemaProxy]) {
	emailField := func(desc string) *base.SchemaProxy {
		return base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "email", MinLength: ptr(int64(1)),
			Examples: []*yaml.Node{str("user@example.com")}, Description: desc})
	}
	link := orderedmap.New[string, *base.SchemaProxy]()
	link.Set("email", emailField("The account's address; compared trimmed and lower-cased."))
	link.Set("redirect_to", redirectProp())
	schemas.Set(schemaMailLink, objectOf(link, "An address to mail a link to.", "email"))

	confirm := orderedmap.New[string, *base.SchemaProxy]()
	confirm.Set("token", tokenString("The token of the link (its token query parameter).", false))
	confirm.Set("password", tokenString("The new password; the auth table's password rules apply.", true))
	schemas.Set(schemaResetConfirm, closedObject(confirm, "A reset token and the new password."))

	token := orderedmap.New[string, *base.SchemaProxy]()
	token.Set("token", tokenString("The token of the link (its token query parameter).", false))
	schemas.Set(schemaMailToken, closedObject(token, "The token of a mailed link."))

	change := orderedmap.New[string, *base.SchemaProxy]()
	change.Set("new_email", emailField("The new address; validated like the auth table's email column."))
	change.Set("redirect_to", redirectProp())
	schemas.Set(schemaEmailChange, objectOf(change, "The address to move the signed-in user to.", "new_email"))

	verified := orderedmap.New[string, *base.SchemaProxy]()
	verified.Set("email", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Description: "The address verified."}))
	verified.Set("email_verified", base.CreateSchemaProxy(&base.Schema{Type: types("boolean"), Const: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}}))
	schemas.Set(schemaEmailVerified, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: verified,
		Required: []string{"email", "email_verified"}, Description: "A verified address."}))
	schemas.Set(schemaEmailVerifResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(schemaEmailVerified)), false,
		"A verified address, in the success envelope.")))
}

// authMailPaths adds password reset, e-mail verification and e-mail
// change.
func authMailPaths(paths *orderedmap.Map[string, *v3.PathItem], auth *schema.CTable, n tableNames) {
	tags := []string{authTag}
	tail := []string{respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable}
	accepted := func(desc string) *v3.Responses {
		r := responses("202", successResponse(desc, schemaMessage, rateHeaders()), respBadBody)
		addErrors(r.Codes, tail...)
		return r
	}
	tokenErrors := errorResponse("The body is invalid, or the token is unknown, already used or expired (details.token says which).", nil,
		errorExample{"token_used", "A used token", apierr.CodeValidation, "This link was already used: request a new one",
			map[string]string{"token": "was already used"}},
		errorExample{"token_expired", "An expired token", apierr.CodeValidation, "This link has expired: request a new one",
			map[string]string{"token": "has expired"}})

	paths.Set("/auth/password-reset", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opResetRequest,
		Summary: "Mail a password reset link",
		Description: "Always 202 with the same body, whether or not an account uses the address. The link holds a single-use token valid " +
			"for 1 hour. At most one message per address a minute and five an hour; beyond that nothing is sent (still 202).",
		RequestBody: jsonBody("The account's address, and where the link should lead.", schemaMailLink), Security: anonymous(),
		Responses: accepted("Accepted: if an account uses the address, a link was sent to it.")}})

	confirm := responses("200", successResponse("The password is changed and every earlier session signed out; the user is signed in "+
		"(no tokens while the account is not active, or its address unverified where verification is required).", schemaRegisterResp, rateHeaders()))
	confirm.Codes.Set("400", tokenErrors)
	addErrors(confirm.Codes, tail...)
	paths.Set("/auth/password-reset/confirm", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opResetConfirm,
		Summary:     "Set a new password with a reset token",
		Description: "Uses the token up, stores the new password, ends every session of the user and answers a fresh one.",
		RequestBody: jsonBody("The reset token and the new password.", schemaResetConfirm), Security: anonymous(),
		Responses: confirm}})

	verify := responses("200", successResponse("The address is verified.", schemaEmailVerifResp, rateHeaders()))
	verify.Codes.Set("400", tokenErrors)
	addErrors(verify.Codes, tail...)
	paths.Set("/auth/verify-email", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opVerifyEmail,
		Summary:     "Verify an e-mail address with its token",
		Description: "Marks the address the link was sent to as verified for its user.",
		RequestBody: jsonBody("The verification token.", schemaMailToken), Security: anonymous(),
		Responses: verify}})

	paths.Set("/auth/verify-email/resend", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opVerifyResend,
		Summary: "Mail a new verification link",
		Description: "Always 202 with the same body; a link (valid 24 hours) goes only to an account's unverified address, " +
			"throttled like password reset.",
		RequestBody: jsonBody("The address to verify, and where the link should lead.", schemaMailLink), Security: anonymous(),
		Responses: accepted("Accepted: if an account uses the address and it is unverified, a link was sent to it.")}})

	change := responses("202", successResponse("A link to confirm the new address was sent to it.", schemaMessage, rateHeaders()),
		respBadBody, respUnauthorized, respForbidden)
	change.Codes.Set("409", errorResponse("Another account uses the new address.", nil,
		errorExample{"email_taken", "Address taken", apierr.CodeConflict, "Another account uses this e-mail address",
			map[string]string{"new_email": "already exists"}}))
	addErrors(change.Codes, respTooLarge, respMediaType)
	change.Codes.Set("429", errorResponse("Too many requests for the plan, or a link was sent to this address moments ago.",
		withRetryAfter(rateHeaders()),
		errorExample{"too_many_attempts", "A link was just sent", apierr.CodeTooManyAttempts,
			"A link was sent to this address moments ago (or too often this hour); try again later", nil},
		errorExample{"rate_limited", "Plan limit reached", apierr.CodeRateLimited, "Rate limit of the free plan reached (100 requests per hour)", nil}))
	addErrors(change.Codes, respInternal, respUnavailable)
	paths.Set("/auth/email-change", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opChangeRequest,
		Summary: "Change the signed-in user's e-mail address",
		Description: "Needs an end-user access token. Mails a link (valid 1 hour) to the new address; the address changes when " +
			"the link is followed (POST /auth/email-change/confirm).",
		RequestBody: jsonBody("The new address, and where the link should lead.", schemaEmailChange),
		Security:    security(schema.LevelAuthenticated),
		Responses:   change}})

	changeConfirm := responses("200", successResponse("The user with the new address, which counts as verified.", n.Response, rateHeaders()))
	changeConfirm.Codes.Set("400", tokenErrors)
	changeConfirm.Codes.Set("409", errorResponse("Another account took the new address meanwhile.", nil,
		errorExample{"email_taken", "Address taken", apierr.CodeConflict, "Another account uses this e-mail address",
			map[string]string{"new_email": "already exists"}}))
	addErrors(changeConfirm.Codes, tail...)
	paths.Set("/auth/email-change/confirm", &v3.PathItem{Post: &v3.Operation{Tags: tags, OperationId: opChangeConfirm,
		Summary:     "Confirm an e-mail change with its token",
		Description: "Moves the user of the token to the new address in " + auth.Name + ".",
		RequestBody: jsonBody("The e-mail change token.", schemaMailToken), Security: anonymous(),
		Responses: changeConfirm}})
}
