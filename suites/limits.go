package suites

import "github.com/evalgate/evalgate/internal/limits"

// Limits on what a suite file may hold, so that a hostile or mistaken file
// is refused quickly instead of taking minutes, gigabytes or the process
// (docs/suites.md, "Limits"). Each is checked before the library that
// would parse the value sees it.
const (
	// MaxSuiteBytes bounds a suite file. The 100,000-task suite of
	// bench/scale.sh is 52 MB of JSON, read a task at a time.
	MaxSuiteBytes = 64 << 20
	// MaxYAMLBytes bounds a YAML suite file, which is parsed whole: the
	// YAML parser takes up to 150 bytes of memory, and a microsecond, for
	// each byte of the file.
	MaxYAMLBytes = 4 << 20
	// MaxAliasValues bounds the values a YAML suite may build by
	// expanding aliases and merge keys (<<), each use of an anchor
	// counting every value under it. Nine lines of nested aliases
	// ("billion laughs") expand to 387 million values; padded to a few
	// megabytes, a budget that grew with the document still let one take
	// gigabytes.
	MaxAliasValues = 1_000_000
	// MaxTaskValues bounds the JSON values of one task of a JSON suite,
	// and of the rest of the suite: a task's tree is held whole while it
	// is validated and decoded, at about 150 bytes a value, where the
	// file holds as little as 2 ("[0,0,...]").
	MaxTaskValues = 1_000_000
	// MaxSuiteValues bounds the JSON values of a JSON suite file: reading
	// one takes a few hundred nanoseconds. The 100,000-task suite of
	// bench/scale.sh holds 1.5 million.
	MaxSuiteValues = 16_000_000
	// MaxExprBytes and MaxExprNesting bound an assert expression: its
	// length, and how deeply (), [] and {} nest in it (internal/limits).
	MaxExprBytes   = limits.ExprBytes
	MaxExprNesting = limits.ExprNesting
	// MaxRegexBytes, MaxRegexNesting and MaxRegexSize bound a regular
	// expression (match strategy regex, the literal pattern of `matches`,
	// a JSON Schema's pattern): its length, how deeply its groups nest,
	// and the instructions it compiles to, x{n} counting n copies of x.
	MaxRegexBytes   = limits.RegexBytes
	MaxRegexNesting = limits.RegexNesting
	MaxRegexSize    = limits.RegexSize
	// MaxExprNodes bounds the expressions of a suite together: the nodes
	// of their parse trees, each distinct expression counted once (twice
	// when several checks share it). Checking one takes about a
	// microsecond a node; the 100,000-task suite of bench/scale.sh has 1.2
	// million, while a file of the largest expressions could have 16
	// million and take half a minute to load.
	MaxExprNodes = 4_000_000
	// MaxSchemaValues bounds a JSON Schema written in a suite (an
	// outputSchema, a json-schema match, a tool's inputSchema): the
	// schema compiler's time grows with the square of its subschemas.
	MaxSchemaValues = 10_000
	// MaxSuiteSchemaValues bounds the JSON Schemas of a suite together,
	// each distinct one counted once: compiling one takes 10 to 40
	// microseconds a value.
	MaxSuiteSchemaValues = 100_000
	// MaxDatasetBytes bounds a dataset file (extension datasets), read a
	// row at a time; a JSON-array file is read whole, so prefer JSON Lines
	// for large ones.
	MaxDatasetBytes = 64 << 20
	// MaxRowBytes bounds a row of a dataset (a CSV record, a JSON Lines
	// line, an element of a JSON array): a row is held whole, as a tree of
	// about 150 bytes a value, while its task is made.
	MaxRowBytes = 1 << 20
	// MaxRowCells bounds the cells of a CSV record, its header included:
	// each costs encoding/csv and the row some 150 bytes, where the file
	// holds as little as one (a comma).
	MaxRowCells = 10_000
	// MaxDatasetRows bounds the rows of a suite's datasets together: each
	// row's task keeps a few hundred bytes for the run.
	MaxDatasetRows = 1_000_000
	// MaxTaskBytes bounds the strings of a task made from a row: a
	// template may use a large cell many times.
	MaxTaskBytes = 4 << 20
)

// limitError is a value over one of the limits. Its message says what the
// limit is; it is reported as it is, not as a failure to compile.
type limitError = limits.Error

// exprLimit checks an assert expression against MaxExprBytes and
// MaxExprNesting.
func exprLimit(src string) error { return limits.Expr(src, "checks") }

// regexLimit checks a regular expression against MaxRegexBytes,
// MaxRegexNesting and MaxRegexSize. It returns the *limitError of a
// pattern over them; parsed is whether the pattern is within them and
// compiles.
func regexLimit(pattern string) (le *limitError, parsed bool) {
	err := limits.Regex(pattern)
	le, _ = err.(*limitError)
	return le, err == nil
}

// The limits on counts, lowered by tests.
var (
	exprNodeBudget    = MaxExprNodes
	taskValueBudget   = MaxTaskValues
	suiteValueBudget  = MaxSuiteValues
	schemaValueBudget = MaxSchemaValues
	suiteSchemaBudget = MaxSuiteSchemaValues
)
