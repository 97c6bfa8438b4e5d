package schema

import "regexp"

// Formats the API checks with one regular expression, which the OpenAPI
// document publishes as the pattern of the same values. Each is written
// in the common subset of RE2 (this package, libopenapi-validator) and
// ECMA-262 with or without the u flag (ajv, Swagger UI), with ASCII
// classes spelled out (\s and \S differ between the two), so the server
// and every validator of the document accept exactly the same strings.
const (
	// URLPattern is an absolute http or https URL: the scheme in any case,
	// optional user information, a host name (RFC 3986 reg-name characters
	// or non-ASCII) or a bracketed IPv6 address, an optional port, then a
	// path, query and fragment with no blanks or control characters and
	// with every % starting an escape of two hex digits. Net/url parses
	// every URL it matches (TestURLPatternIsWithinNetURL).
	URLPattern = `^[Hh][Tt][Tt][Pp][Ss]?://(([A-Za-z0-9._~!$&'()*+,;=:-]|%[0-9A-Fa-f]{2})*@)?` +
		`(([A-Za-z0-9._~!$&'()*+,;=-]|[^\x00-\x7F])+|\[` + ipv6Pattern + `\])(:[0-9]*)?` +
		`([/?#]([^\x00-\x20\x7F%]|%[0-9A-Fa-f]{2})*)?$`

	// DecimalPattern is a decimal as a string or JSON number: at most
	// DecimalDigits digits before and after the point and an exponent of
	// at most two digits, so every accepted value is a finite double
	// (below 1e299) for the bounds check and fits PostgreSQL's numeric,
	// with ASCII blanks around it that the server trims.
	DecimalPattern = `^[\t\n\v\f\r ]*[+-]?([0-9]{1,200}(\.[0-9]{0,200})?|\.[0-9]{1,200})([eE][+-]?[0-9]{1,2})?[\t\n\v\f\r ]*$`

	// DecimalDigits bounds the digits on each side of a decimal's point.
	DecimalDigits = 200

	// EmailPattern is the e-mail rule of the API, the document and the
	// dashboard alike: ASCII blanks around it (the server trims them),
	// a local part of dot-separated atoms (RFC 5322's dot-atom: letters,
	// digits and !#$%&'*+/=?^_`{|}~- without a leading, trailing or
	// doubled dot), @, and a domain of two or more labels of letters,
	// digits and inner hyphens, at most 63 characters each (RFC 1035),
	// in any letter case (the server lower-cases). It is the "email"
	// format of ajv-formats with the blanks added; quoted local parts,
	// IP literals, Unicode and blanks inside are refused. EmailMaxLength
	// bounds the whole value as sent, as the document's maxLength does.
	EmailPattern = `^[\t\n\v\f\r ]*` + emailAddress + `[\t\n\v\f\r ]*$`

	// EmailMaxLength bounds an e-mail as sent, blanks around it included
	// (RFC 5321 limits a path to 254 characters).
	EmailMaxLength = 254

	emailAtom    = `[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+`
	emailLabel   = `[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?`
	emailAddress = emailAtom + `(\.` + emailAtom + `)*@` + emailLabel + `(\.` + emailLabel + `)+`

	// emailBlanks are the blanks EmailPattern allows around an address.
	emailBlanks = "\t\n\v\f\r "

	// UUIDPattern is a UUID in either case, as the server checks it.
	UUIDPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

	// DatePattern is a date written YYYY-MM-DD with its month and day in
	// range (the day against the month is left to the format).
	DatePattern = `^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$`

	// DateTimePattern is RFC 3339 as Go's time.RFC3339Nano parses it:
	// upper-case T and Z, fields in range (day-of-month against the
	// month is left to the format).
	DateTimePattern = `^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$`
)

// The IPv6address rule of RFC 3986 (net/url checks IP literals since Go
// 1.26): h16 is up to four hex digits, ls32 two of them or an IPv4
// address without leading zeros.
const (
	h16         = `[0-9A-Fa-f]{1,4}`
	decOctet    = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	ls32        = `(` + h16 + `:` + h16 + `|` + decOctet + `\.` + decOctet + `\.` + decOctet + `\.` + decOctet + `)`
	ipv6Pattern = `((` + h16 + `:){6}` + ls32 +
		`|::(` + h16 + `:){5}` + ls32 +
		`|(` + h16 + `)?::(` + h16 + `:){4}` + ls32 +
		`|((` + h16 + `:){0,1}` + h16 + `)?::(` + h16 + `:){3}` + ls32 +
		`|((` + h16 + `:){0,2}` + h16 + `)?::(` + h16 + `:){2}` + ls32 +
		`|((` + h16 + `:){0,3}` + h16 + `)?::` + h16 + `:` + ls32 +
		`|((` + h16 + `:){0,4}` + h16 + `)?::` + ls32 +
		`|((` + h16 + `:){0,5}` + h16 + `)?::` + h16 +
		`|((` + h16 + `:){0,6}` + h16 + `)?::)`
)

var (
	urlRe     = regexp.MustCompile(URLPattern)
	decimalRe = regexp.MustCompile(DecimalPattern)
	emailRe   = regexp.MustCompile(EmailPattern)
)

// decimalBlanks are the blanks DecimalPattern allows around a decimal.
const decimalBlanks = "\t\n\v\f\r "
