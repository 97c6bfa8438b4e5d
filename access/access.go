// Package access decides what a caller of a generated API may do: which
// operations a table's rules allow it (CONTRACT 5.3) and which rows it
// reaches. It is the one home of those rules: the handlers ask it once per
// request and translate receives its answer as data.
package access

import "github.com/tablesmith/tablesmith/schema"

// Kind is what sort of credential a request carries.
type Kind uint8

// The kinds of caller.
const (
	Anonymous Kind = iota // no credential
	APIKey                // a project API key
	EndUser               // an end user's access token
	// Dashboard is the project owner's own dashboard, signed in with a
	// platform session: as powerful as a read-write API key, but not
	// counted against the plan and kept apart in analytics.
	Dashboard
)

// String is the kind as analytics and logs label it.
func (k Kind) String() string {
	switch k {
	case APIKey:
		return "key"
	case EndUser:
		return "user"
	case Dashboard:
		return "dashboard"
	}
	return "none"
}

// Principal is who makes a request. The zero value is an anonymous caller.
type Principal struct {
	Kind Kind
	// ReadOnly is set for an API key whose scope allows no writes, and
	// for the dashboard session of a member who writes no data (a viewer,
	// docs/teams.md).
	ReadOnly bool
	// KeyPrefix is the API key's public prefix.
	KeyPrefix string
	// UserID is the end user's id (int64 or a UUID string).
	UserID any
}

// Key is the principal of an API key.
func Key(prefix string, readOnly bool) Principal {
	return Principal{Kind: APIKey, KeyPrefix: prefix, ReadOnly: readOnly}
}

// Owner is the principal of the project owner's dashboard session (and a
// member's who may write data).
func Owner() Principal { return Principal{Kind: Dashboard} }

// Viewer is the principal of the dashboard session of a member who reads
// only.
func Viewer() Principal { return Principal{Kind: Dashboard, ReadOnly: true} }

// User is the principal of an end user.
func User(id any) Principal { return Principal{Kind: EndUser, UserID: id} }

// Action is what a request does to a table, named as the rule that governs it.
type Action string

// The actions of the table rules.
const (
	Read   Action = "read"
	Create Action = "create"
	Update Action = "update"
	Delete Action = "delete"
)

// Writes reports whether the action changes data.
func (a Action) Writes() bool { return a != Read }

// Denied is a refusal. Unauthenticated: the caller should send (another)
// credential (401); otherwise the credential is known but not enough (403).
type Denied struct {
	Unauthenticated bool
	Message         string
}

func (d *Denied) Error() string { return d.Message }

// Rows limits an action to some rows: those whose Column equals Value.
// The zero value reaches every row.
type Rows struct {
	Column *schema.CColumn
	Value  any
}

// All reports whether no row is out of reach.
func (r Rows) All() bool { return r.Column == nil }

// Grant is an allowed action on one table.
type Grant struct {
	// Rows are the rows the action reads, changes or deletes.
	Rows Rows
	// Owner is how a create or update treats the table's owner column.
	Owner OwnerRule
}

// OwnerRule says who decides the owner column's value on a write.
type OwnerRule uint8

// The owner rules. Only API keys set an owner column freely: an end user's
// write always makes the caller the owner, and an anonymous write may not
// name an owner at all.
const (
	OwnerFree      OwnerRule = iota // the body decides (API keys, tables without owner column)
	OwnerIsCaller                   // the column is set to the caller's id
	OwnerForbidden                  // the body may not set the column
)

// Decide checks t's rule for action a against p: the grant, or a *Denied.
func Decide(p Principal, t *schema.CTable, a Action) (Grant, error) {
	if p.Kind == APIKey && p.ReadOnly && a.Writes() {
		return Grant{}, &Denied{Message: "This API key is read-only"}
	}
	if p.Kind == Dashboard && p.ReadOnly && a.Writes() {
		return Grant{}, &Denied{Message: "A viewer's dashboard session is read-only: writing data needs the developer role or higher in this project"}
	}
	level := t.Level(string(a))
	switch level {
	case schema.LevelPublic:
	case schema.LevelKey:
		if p.Kind == Anonymous {
			return Grant{}, &Denied{Unauthenticated: true, Message: "This endpoint needs an API key: Authorization: Bearer <API key>"}
		}
		if p.Kind != APIKey && p.Kind != Dashboard {
			return Grant{}, &Denied{Message: "This operation is only allowed with an API key"}
		}
	default: // authenticated, owner
		if p.Kind == Anonymous {
			return Grant{}, &Denied{Unauthenticated: true, Message: "Missing credential: send Authorization: Bearer <API key or access token>"}
		}
	}
	g := Grant{}
	if t.Owner == nil {
		return g, nil
	}
	if p.Kind == EndUser && level == schema.LevelOwner && a != Create {
		g.Rows = Rows{Column: t.Owner, Value: p.UserID}
	}
	if a == Create || a == Update {
		switch p.Kind {
		case EndUser:
			g.Owner = OwnerIsCaller
		case Anonymous:
			g.Owner = OwnerForbidden
		}
	}
	return g, nil
}

// Embed decides whether p may read table t as an embedded relation and
// which of its rows it sees. shown names the include path for messages.
// An embed needs a credential unless t is public, and any refusal is 403:
// the request itself was admitted.
func Embed(p Principal, t *schema.CTable, shown string) (Rows, error) {
	g, err := Decide(p, t, Read)
	if err == nil {
		return g.Rows, nil
	}
	if t.Level(string(Read)) == schema.LevelKey {
		return Rows{}, &Denied{Message: "including " + shown + " needs an API key (" + t.Name + " is readable with API keys only)"}
	}
	return Rows{}, &Denied{Message: "including " + shown + " needs a credential (" + t.Name + " is not public)"}
}
