package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/engine"
)

// queryCmd runs a read-only statement against a stopped pipeline's state
// directory: the way to look at a view, a TABLE or a dead-letter table
// from the shell until `streamsql serve` exists. It opens the state as a
// restart would (so an exactly-once sink's pending checkpoint is
// recovered, which needs its destination reachable), runs the statement
// and drops the engine without a checkpoint: the state is left as it was.
func queryCmd(stateDir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "query SQL",
		Short: "Run SELECT / SHOW / DESCRIBE / EXPLAIN against the state of a stopped pipeline",
		Long: `Run a read-only statement (SELECT, SHOW, DESCRIBE, EXPLAIN) against the state
in --state-dir and print its rows. The pipeline must be stopped:
its state directory is locked while it runs. Example:

  streamsql query --state-dir /tmp/k2p 'SELECT "partition", "offset", error FROM bids_dead_letter LIMIT 5'`,
		Args: oneArg("one SQL statement argument (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := readOnly(args[0]); err != nil {
				printErr(err)
				return exitError{2}
			}
			if err := existingStateDir(*stateDir); err != nil {
				printErr(err)
				return exitError{1}
			}
			e, err := engine.Open(engine.Options{StateDir: *stateDir, Registry: registry(io.Discard)})
			if err != nil {
				if strings.Contains(err.Error(), "lock") {
					err = fmt.Errorf("%w (is a pipeline still running on %s? stop it first)", err, *stateDir)
				}
				printErr(err)
				return exitError{1}
			}
			defer func() { _ = e.Crash() }()
			res, err := e.Exec(cmd.Context(), args[0])
			if err != nil {
				printErr(err)
				return exitError{1}
			}
			if res != nil && res.Schema != nil {
				printRows(res)
			}
			return nil
		},
	}
}

// readOnly refuses a statement other than SELECT, SHOW, DESCRIBE and
// EXPLAIN: query drops the engine without a checkpoint, so a change would
// be half applied.
func readOnly(sql string) error {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return fmt.Errorf("query needs a statement")
	}
	switch kw := strings.ToUpper(strings.TrimRight(f[0], ";")); kw {
	case "SELECT", "SHOW", "DESCRIBE", "EXPLAIN":
		return nil
	default:
		return fmt.Errorf("query runs only SELECT, SHOW, DESCRIBE and EXPLAIN, not %s", kw)
	}
}

// existingStateDir refuses a state directory that does not exist or holds
// nothing: opening it would create an empty state and answer every query
// with nothing, hiding a mistyped --state-dir.
func existingStateDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state directory %s does not exist (give the --state-dir of a pipeline that ran)", dir)
	}
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if len(entries) == 0 {
		return fmt.Errorf("state directory %s is empty (give the --state-dir of a pipeline that ran)", dir)
	}
	return nil
}
