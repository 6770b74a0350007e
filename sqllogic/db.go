package sqllogic

import (
	"context"

	"github.com/streamsql/streamsql/types"
)

// Result is what one statement returns; nil or zero Schema for statements without rows.
type Result struct {
	Schema types.Schema
	Rows   []types.Row
	// TimeZone is the session's TimeZone, which TIMESTAMPTZ values print
	// in ("" is UTC).
	TimeZone string
}

// DB is one engine instance over a state directory.
type DB interface {
	// Exec runs one record's SQL text. For `statement` records the text may
	// hold several ;-separated statements; the runner passes it as is.
	Exec(ctx context.Context, sql string) (*Result, error)
	// Close shuts the engine down cleanly (checkpoint and close).
	Close() error
	// Crash drops the engine without a clean close or checkpoint, as a
	// simulated crash, releasing its files so that a reopen works.
	Crash() error
	// Checkpoint forces a checkpoint.
	Checkpoint() error
}

// Opener opens (or reopens) an engine on stateDir with the given settings.
type Opener func(stateDir string, settings map[string]string) (DB, error)

// RowsAffectedColumn is the column name by which an engine reports how many
// rows a statement affected, for `statement count N`: a Result with exactly
// this one column and one integer row. Any other Result counts its rows.
const RowsAffectedColumn = "rows_affected"

// RowsAffected returns the count `statement count N` compares with N: the
// value of a single-row, single-column Result named RowsAffectedColumn, or
// else the number of rows in res (0 for nil).
func RowsAffected(res *Result) int64 {
	if res == nil {
		return 0
	}
	if len(res.Schema) == 1 && len(res.Rows) == 1 && len(res.Rows[0]) == 1 &&
		res.Schema.Index(RowsAffectedColumn) == 0 && res.Rows[0][0].K == types.Int {
		return res.Rows[0][0].I
	}
	return int64(len(res.Rows))
}
