package schema

// MaxIndexedLength is the most characters a value of a unique or indexed
// text or URL column may hold (an e-mail's own bound, 254, is lower).
//
// Such a value is a key of a btree index (the unique constraint's, or the
// (column, id) index of index: true), and PostgreSQL refuses an index
// entry over 2,704 bytes (a third of a page): the write failed with
// "index row size … exceeds btree version 4 maximum" or, for a value that
// does not compress, "index row requires … bytes". Compression makes the
// real bound depend on the value, which no client can predict, so the
// bound is in characters, which the OpenAPI document can publish
// (maxLength) and any client check: 600 characters are at most 2,400 bytes
// in UTF-8 (4 bytes a character), which leaves room for the row's id and
// the entry's header however little the value compresses.
const MaxIndexedLength = 600

// indexedValue reports whether the values of c are keys of a btree index
// on the column itself (a reference's index holds integers or UUIDs).
func indexedValue(c *Column) bool {
	return (c.Unique || c.Index) && typeOf(c.Type).Traits.Textual
}

// MaxLength is the most characters the server accepts in a string value
// of c: its max_length, lowered to MaxIndexedLength when the column is
// unique or indexed; ok is false when nothing bounds it.
func MaxLength(c *Column) (n int, ok bool) {
	if c.MaxLength != nil {
		n, ok = *c.MaxLength, true
	}
	if indexedValue(c) && (!ok || n > MaxIndexedLength) {
		n, ok = MaxIndexedLength, true
	}
	return n, ok
}
