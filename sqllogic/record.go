package sqllogic

import "regexp"

// record is one unit of an .slt file. It is a closed sum: statement,
// query and directive are the only implementations.
type record interface {
	// header returns the record's position and its skipif/onlyif conditions.
	header() *recordHeader
}

// recordHeader holds what every record kind has.
type recordHeader struct {
	line  int         // 1-based line of the record's first line (its first condition, if any)
	conds []condition // skipif/onlyif lines before the record
}

func (h *recordHeader) header() *recordHeader { return h }

// condition is one `skipif <engine>` or `onlyif <engine>` line.
type condition struct {
	skip   bool // true for skipif, false for onlyif
	engine string
}

// expectKind is what a statement or query expects to happen.
type expectKind uint8

const (
	expectOK    expectKind = iota // statement ok / query with results
	expectError                   // statement error <re> / query error <re>
	expectCount                   // statement count N
)

// statement is a `statement ok|error|count` record.
type statement struct {
	recordHeader
	sql     string
	expect  expectKind
	pattern string         // the error regex as written (expectError)
	re      *regexp.Regexp // compiled pattern; nil when empty (any error)
	count   int64          // expectCount
}

// sortMode orders a query's result before it is compared.
type sortMode uint8

const (
	noSort sortMode = iota
	rowSort
	valueSort
)

func (m sortMode) String() string {
	switch m {
	case rowSort:
		return "rowsort"
	case valueSort:
		return "valuesort"
	}
	return "nosort"
}

// query is a `query <types> [sort] [label]` or `query error <re>` record.
type query struct {
	recordHeader
	sql      string
	types    string // column type letters, e.g. "ITR"; empty for query error
	sort     sortMode
	label    string
	isError  bool
	pattern  string
	re       *regexp.Regexp
	expected []string // result lines after ----, right-trimmed
}

// directiveKind names a single-line control record.
type directiveKind uint8

const (
	dirHalt directiveKind = iota
	dirHashThreshold
	dirRestart
	dirCrash
	dirCheckpoint
)

func (k directiveKind) String() string {
	switch k {
	case dirHalt:
		return "halt"
	case dirHashThreshold:
		return "hash-threshold"
	case dirRestart:
		return "restart"
	case dirCrash:
		return "crash"
	case dirCheckpoint:
		return "checkpoint"
	}
	return "directive?"
}

// directive is a halt, hash-threshold, restart, crash or checkpoint line.
type directive struct {
	recordHeader
	kind directiveKind
	n    int // hash-threshold value
}
