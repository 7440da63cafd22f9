package suites

import (
	"cmp"
	"slices"
	"strings"
)

// Kinds of Error.
const (
	ErrSyntax   = "syntax"   // the file is not valid JSON or YAML, or not a JSON value
	ErrSchema   = "schema"   // the document does not follow the suite schema
	ErrSemantic = "semantic" // the document is well-formed but means something impossible
	ErrIO       = "io"       // the file could not be read
	ErrOpenWOP  = "openwop"  // valid for evalgate, but not strictly openwop-portable (CheckOpenWOP)
)

// Error is one problem in a suite file.
type Error struct {
	Pos     Pos    // where; Line is 0 when only the file is known
	Pointer string // JSON pointer of the bad field; "" for the whole file
	Message string // what is wrong and what was expected, without the pointer
	Kind    string // ErrSyntax, ErrSchema, ErrSemantic or ErrIO
}

// Error renders the error as `file:line:col: pointer: message [kind]`, the
// pointer only when there is one.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if e.Pointer != "" {
		b.WriteString(e.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	b.WriteString(" [")
	b.WriteString(e.Kind)
	b.WriteString("]")
	return b.String()
}

// Errors is every problem found, sorted by file, line and column. A non-empty
// Errors is what Load and Parse return as their error.
type Errors []*Error

// Error renders one error per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sort orders the errors by file, line, column, pointer and message, and
// drops exact duplicates.
func (es Errors) sort() Errors {
	slices.SortStableFunc(es, compareErrors)
	return slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
}

func compareErrors(a, b *Error) int {
	return cmp.Or(
		cmp.Compare(a.Pos.File, b.Pos.File),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col),
		cmp.Compare(a.Pointer, b.Pointer),
		cmp.Compare(a.Message, b.Message),
	)
}

// orNil returns es as an error, or a nil error when it is empty (never a
// non-nil error holding an empty list).
func (es Errors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es.sort()
}
