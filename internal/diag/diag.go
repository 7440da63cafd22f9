// Package diag is the one positioned error of evalgate's inputs: a problem
// in a suite file, the project file, a labels file, rendered as
//
//	file:line:col: /pointer: message [kind]
//
// with the column, pointer and kind only when known, and only the file
// when the line is not. suites, config, judges (labels) and report (SARIF)
// share it, so every input problem reads the same and sorts the same.
//
// The rendering escapes each part (internal/escape): a file name, a key or
// a value quoted from a hostile file prints on the error's one line.
package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/escape"
)

// Pos is a position in a file; Line and Col are 1-based, 0 when unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders the position as file:line:col, file:line without a
// column, or file without a line; the file name escaped.
func (p Pos) String() string {
	file := escape.Text(p.File)
	switch {
	case p.Line == 0:
		return file
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Error is one problem in an input file.
type Error struct {
	Pos     Pos    // where; Line is 0 when only the file is known
	Pointer string // JSON pointer of the bad field; "" for none or the whole file
	Message string // what is wrong and what was expected, without the pointer
	Kind    string // what sort of problem (suites: syntax, schema, ...); "" for none
}

// Error renders the error as `file:line:col: /pointer: message [kind]`, on
// one line whatever its parts hold.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Detail())
	if e.Kind != "" {
		b.WriteString(" [")
		b.WriteString(escape.Text(e.Kind))
		b.WriteString("]")
	}
	return b.String()
}

// Detail is the error without its position and kind: `/pointer: message`,
// what an annotation placed at the position says; escaped, on one line.
func (e *Error) Detail() string {
	if e.Pointer == "" {
		return escape.Text(e.Message)
	}
	return escape.Text(e.Pointer) + ": " + escape.Text(e.Message)
}

// Errors is every problem found. A non-empty Errors is an error.
type Errors []*Error

// Error renders one error per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the errors by file, line, column, pointer and message, and
// drops exact duplicates.
func (es Errors) Sort() Errors {
	slices.SortStableFunc(es, compare)
	return slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
}

func compare(a, b *Error) int {
	return cmp.Or(
		cmp.Compare(a.Pos.File, b.Pos.File),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col),
		cmp.Compare(a.Pointer, b.Pointer),
		cmp.Compare(a.Message, b.Message),
	)
}

// Err returns the errors sorted, as an error, or a nil error when there
// are none (never a non-nil error holding an empty list).
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es.Sort()
}
