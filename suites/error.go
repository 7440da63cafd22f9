package suites

import "github.com/evalgate/evalgate/internal/diag"

// Kinds of Error.
const (
	ErrSyntax   = "syntax"   // the file is not valid JSON or YAML, or not a JSON value
	ErrSchema   = "schema"   // the document does not follow the suite schema
	ErrSemantic = "semantic" // the document is well-formed but means something impossible
	ErrIO       = "io"       // the file could not be read
	ErrOpenWOP  = "openwop"  // valid for evalgate, but not strictly openwop-portable (CheckOpenWOP)
)

// Error is one problem in a suite file, rendered as
// `file:line:col: /pointer: message [kind]` (the pointer only when there is
// one); its Kind is ErrSyntax, ErrSchema, ErrSemantic, ErrIO or ErrOpenWOP.
// It is evalgate's one positioned error, shared with the project file and
// labels files.
type Error = diag.Error

// Errors is every problem found, sorted by file, line and column. A
// non-empty Errors is what Load and Parse return as their error.
type Errors = diag.Errors
