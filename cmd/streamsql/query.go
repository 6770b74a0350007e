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
// from the shell. It reads the state as of the last checkpoint, like
// reading a savepoint: the store is opened read-only (Badger refuses
// while a pipeline runs on it), nothing is restored, started or replayed,
// and nothing is written. Rows INSERTed into a memory source after the
// last checkpoint are not in the answers (a restart replays them); a
// NOTICE counts them. A state whose process was killed is first
// recovered at the storage level, as any restart does (a NOTICE says so).
func queryCmd(stateDir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "query SQL",
		Short: "Run SELECT / SHOW / DESCRIBE / EXPLAIN against the state of a stopped pipeline",
		Long: `Run a read-only statement (SELECT, SHOW, DESCRIBE, EXPLAIN) against the state
in --state-dir and print its rows, as of the pipeline's last checkpoint. The
pipeline must be stopped: its state directory is locked while it runs.
Nothing is written to the state (after a crash, the storage is first
recovered as a restart would). Example:

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
			e, err := engine.Open(engine.Options{StateDir: *stateDir, Registry: registry(io.Discard), ReadOnly: true})
			if err != nil {
				if strings.Contains(err.Error(), "lock") {
					err = fmt.Errorf("%w (is a pipeline still running on %s? stop it first)", err, *stateDir)
				}
				printErr(err)
				return exitError{1}
			}
			defer func() { _ = e.Close() }()
			if e.Repaired() {
				fmt.Fprintf(os.Stderr, "NOTICE: the state was not closed cleanly (a crash): its storage was recovered as a restart would before reading it\n")
			}
			res, err := e.Exec(cmd.Context(), args[0])
			if err != nil {
				printErr(err)
				return exitError{1}
			}
			notices, err := e.Notices()
			if err != nil {
				printErr(err)
				return exitError{1}
			}
			for _, n := range notices {
				fmt.Fprintf(os.Stderr, "NOTICE: %s\n", n)
			}
			if res != nil && res.Schema != nil {
				printRows(res)
			}
			return nil
		},
	}
}

// readOnly refuses a statement other than SELECT, SHOW, DESCRIBE and
// EXPLAIN: query opens the state read-only.
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
