// Package sqlerr is the leaf that holds source positions and SQLSTATE error
// codes. Every layer returns *Error for user-facing failures so the CLI,
// the slt runner and the wire server all print the same text and code.
package sqlerr

import (
	"errors"
	"fmt"
)

// SQLSTATE codes streamsql uses.
const (
	SyntaxError       = "42601"
	UndefinedTable    = "42P01"
	UndefinedColumn   = "42703"
	DuplicateObject   = "42710"
	DatatypeMismatch  = "42804"
	WrongObjectType   = "42809" // wrong_object_type: e.g. FILTER on a function that is no aggregate
	UndefinedFunction = "42883"
	UndefinedObject   = "42704"
	GroupingError     = "42803"
	InvalidParameter  = "22023"
	InvalidTextRepr   = "22P02" // a value that does not parse as its type
	BadCopyFormat     = "22P04"
	InvalidDatetime   = "22007"
	DatetimeOverflow  = "22008" // datetime_field_overflow: a date, timestamp or interval out of range
	DivisionByZero    = "22012"
	DataException     = "22000"
	FeatureNotSupport = "0A000"
	CannotCoerce      = "42846" // cannot_coerce: no cast between the types
	NotNullViolation  = "23502"
	UniqueViolation   = "23505"
	QueryCanceled     = "57014"
	StackDepth        = "54001" // stack_depth_limit_exceeded: a statement nests deeper than MaxDepth
	InvalidObjectDef  = "42P17" // contract violations: unbounded state, late data
	InternalError     = "XX000"
	// DuplicateFunction is duplicate_function: CREATE FUNCTION of a name
	// taken (by a SQL function or a built-in).
	DuplicateFunction = "42723"
	// InvalidFunctionDef is invalid_function_definition: a SQL function
	// body that is not one scalar expression of the declared type.
	InvalidFunctionDef = "42P13"
	// DependentObjects is dependent_objects_still_exist: DROP or replace
	// of something a view uses.
	DependentObjects = "2BP01"
	// DuplicateAlias is duplicate_alias: a WITH query name given twice.
	DuplicateAlias = "42712"
	// InvalidColumnReference is invalid_column_reference: more column
	// names than a WITH query or USING side has, or a USING column
	// missing from a side.
	InvalidColumnReference = "42P10"
	// DuplicateColumn is duplicate_column: a column listed twice in USING.
	DuplicateColumn = "42701"
	// AmbiguousColumn is ambiguous_column: a USING column found twice on
	// one side.
	AmbiguousColumn = "42702"
	// UndefinedParameter is undefined_parameter: a $n the statement was
	// not given a value for.
	UndefinedParameter = "42P02"
	// InvalidRowCount is invalid_row_count_in_limit_clause.
	InvalidRowCount = "2201W"
)

// MaxDepth is how deeply a statement may nest: each parenthesis, operator,
// CASE, function call and subquery is (at least) one level. The parser
// refuses deeper statements with StackDepth before any recursive pass (the
// binder, the plan rules, the expression compiler, the catalog evaluator)
// walks them, so none of those can run out of stack.
const MaxDepth = 1000

// TooDeep returns the StackDepth error for a statement that nests deeper
// than MaxDepth at pos (what says what nests, e.g. "parentheses").
func TooDeep(pos Pos, what string) *Error {
	msg := fmt.Sprintf("stack depth limit exceeded: %s nest more than %d levels deep", what, MaxDepth)
	if pos.IsValid() {
		msg += fmt.Sprintf(" (line %d, column %d)", pos.Line, pos.Col)
	}
	return &Error{
		Code: StackDepth, Msg: msg, Pos: pos,
		Hint: "simplify the statement; write a long OR chain of equalities as IN (...)",
	}
}

// Pos is a position in the user's SQL text: 1-based line and column and the
// 0-based byte offset.
type Pos struct {
	Line, Col, Offset int
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// PosAt computes the line and column of byte offset off in text.
func PosAt(text string, off int) Pos {
	if off > len(text) {
		off = len(text)
	}
	if off < 0 {
		off = 0
	}
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return Pos{Line: line, Col: col, Offset: off}
}

// Error is a user-facing error with a SQLSTATE code, an optional position
// and hint, and an optional wrapped cause.
type Error struct {
	Code string
	Msg  string
	Hint string
	Pos  Pos
	Err  error
}

// Error formats the message, with the position when known.
func (e *Error) Error() string {
	s := e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with code and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// Code returns the SQLSTATE of err, or InternalError when err carries none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return InternalError
}
