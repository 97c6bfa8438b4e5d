package translate

import "github.com/tablesmith/tablesmith/schema"

// Statement is one rendered statement with its arguments in order: the
// plan of a read or write of one record, as ListSQL is a list's. Handlers
// run it; they never put arguments together themselves.
type Statement struct {
	SQL  string
	Args []any
}

// RecordOp names a by-id statement of a table.
type RecordOp int

// The by-id statements.
const (
	// GetRecord reads the record as JSON.
	GetRecord RecordOp = iota
	// LockRecord reads it as GetRecord does and locks its row until the
	// transaction ends (a conditional write compares, then writes).
	LockRecord
	// DeleteRecord deletes it, answering the deleted record as JSON.
	DeleteRecord
)

// ByID plans op on the record whose key is id; with an owner (an end
// user's owner-scoped grant), only if the record is theirs.
func (s *TableSQL) ByID(op RecordOp, id, owner any) Statement {
	plain, owned := s.Get, s.GetOwned
	switch op {
	case LockRecord:
		plain, owned = s.Lock, s.LockOwned
	case DeleteRecord:
		plain, owned = s.Delete, s.DeleteOwned
	}
	if owner != nil {
		return Statement{SQL: owned, Args: []any{id, owner}}
	}
	return Statement{SQL: plain, Args: []any{id}}
}

// InsertRecord plans the create of one record setting cols to vals (every
// other column takes its default).
func (s *TableSQL) InsertRecord(cols []*schema.CColumn, vals []any) Statement {
	return Statement{SQL: s.Insert(cols), Args: vals}
}

// UpdateRecord plans the update of the record whose key is id (and, with
// an owner, only if it is theirs): cols take vals, reset columns go back
// to their defaults.
func (s *TableSQL) UpdateRecord(cols []*schema.CColumn, vals []any, reset []*schema.CColumn, id, owner any) Statement {
	args := append(vals[:len(vals):len(vals)], id)
	if owner != nil {
		args = append(args, owner)
	}
	return Statement{SQL: s.Update(cols, reset, owner != nil), Args: args}
}
