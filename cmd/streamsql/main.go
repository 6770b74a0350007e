// Command streamsql runs streaming-SQL pipelines: `run` executes a .sql
// file until its bounded sources end (or Ctrl-C), `test` runs
// sqllogictest files, `explain` and `check` print the plans and the
// lateness contract, `serve` keeps pipelines running behind a Postgres
// wire server (serve.go, docs/server.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func main() {
	os.Exit(execute(rootCmd(), os.Args[1:], os.Stderr))
}

// execute runs the command line args and returns the exit code. A
// command prints its own failure (see guard) and exits 1 (test: 2 for a
// broken file, 1 for a failing one); any other error is a mistake in the
// command line (an unknown command or flag, a missing argument), which
// prints one line and the command's usage, and exits 2.
func execute(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	root.SetOut(os.Stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var e exitError
	if errors.As(err, &e) {
		return e.code
	}
	fmt.Fprintf(stderr, "ERROR: %s\n%s", oneLine(err), cmd.UsageString())
	return 2
}

// oneLine puts cobra's command-line error on one line: its "Did you mean
// this?" list becomes a parenthesis.
func oneLine(err error) string {
	msg, suggestions, found := strings.Cut(err.Error(), "\n\nDid you mean this?\n")
	if !found {
		return strings.Join(strings.Fields(msg), " ")
	}
	return msg + " (did you mean " + strings.Join(strings.Fields(suggestions), " or ") + "?)"
}

// guard makes every command below root print its own failure: an error a
// RunE returns unprinted is printed and becomes exit 1, so that execute
// can tell a failing command from a command-line mistake. A group of
// commands (dev) given an unknown one is a mistake too, not a request for
// its help.
func guard(cmd *cobra.Command) {
	if cmd.HasParent() && cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.Args = cobra.NoArgs
		cmd.Run = func(c *cobra.Command, _ []string) { _ = c.Help() }
	}
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			err := run(c, args)
			var e exitError
			if err == nil || errors.As(err, &e) {
				return err
			}
			printErr(err)
			return exitError{1}
		}
	}
	for _, sub := range cmd.Commands() {
		guard(sub)
	}
}

// oneArg accepts exactly one positional argument, what it names.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return fmt.Errorf("%s needs %s", cmd.Name(), what)
		default:
			return fmt.Errorf("%s takes %s, got %d arguments: %s", cmd.Name(), what, len(args), strings.Join(args, " "))
		}
	}
}

// exitError is a failure that was already printed: the command exits
// with code.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func rootCmd() *cobra.Command {
	var (
		stateDir string
		logs     logFlags
	)
	root := &cobra.Command{
		Use:   "streamsql",
		Short: "Streaming SQL with event-time windows and a stated lateness contract",
		Long: `streamsql runs SQL pipelines over streams: CREATE SOURCE, CREATE MATERIALIZED
VIEW with TUMBLE / HOP / SESSION windows, WATERMARK FOR, ALLOWED LATENESS,
LATE DATA and EMIT, and CREATE SINK. State lives in --state-dir and survives
restarts and crashes.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(debug.ReadBuildInfo()),
		PersistentPreRunE: func(*cobra.Command, []string) error {
			l, err := logs.logger(stderrLog)
			if err != nil {
				return err
			}
			logger = l
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&stateDir, "state-dir", "./.streamsql", "directory for state and checkpoints")
	root.PersistentFlags().StringVar(&logs.level, "log-level", "info", "the least severe log records written to stderr: debug, info, warn or error")
	root.PersistentFlags().StringVar(&logs.format, "log-format", "text", "log records as text (key=value) or json (one object a line)")
	root.AddCommand(runCmd(&stateDir), testCmd(), explainCmd(&stateDir, false), explainCmd(&stateDir, true), benchCmd(), devCmd(), docsCmd(), queryCmd(&stateDir))
	root.AddCommand(serveCmd(&stateDir), versionCmd())
	guard(root)
	return root
}

// readPipeline reads a .sql file for run, explain and check; a file
// without a statement (empty, or only comments) is an error, not a
// pipeline that does nothing.
func readPipeline(file string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	if stmts, err := parser.Parse(string(src)); err == nil && len(stmts) == 0 {
		return "", fmt.Errorf("%s holds no statements", file)
	}
	return string(src), nil
}

// printErr prints an error the way psql does, with the position for SQL
// errors.
func printErr(err error) {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		fmt.Fprintf(os.Stderr, "ERROR: %s\n", se.Error())
		return
	}
	fmt.Fprintf(os.Stderr, "ERROR: %v\n", err)
}

func runCmd(stateDir *string) *cobra.Command {
	var (
		interval time.Duration
		progress string
		prof     profiles
		web      httpFlags
		memLimit string
	)
	cmd := &cobra.Command{
		Use:   "run FILE.sql",
		Short: "Run a pipeline file until its bounded sources end or Ctrl-C",
		Args:  oneArg("one FILE.sql argument"),
		RunE: func(cmd *cobra.Command, args []string) error {
			stopProf, err := prof.start()
			if err != nil {
				printErr(err)
				return exitError{1}
			}
			if err := web.check(nil); err != nil {
				printErr(err)
				return exitError{1}
			}
			if progress != "auto" && progress != "always" && progress != "never" {
				return fmt.Errorf("--progress %q: want auto, always or never", progress)
			}
			err = runPipeline(cmd.Context(), args[0], *stateDir, checkpointInterval(cmd), memLimit, web, prof.atEnd, progress)
			if perr := stopProf(); err == nil {
				err = perr
			}
			if err != nil {
				printErr(err)
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&interval, "checkpoint-interval", 0, "time between checkpoints (default: the file's SET checkpoint_interval, else 10s)")
	cmd.Flags().StringVar(&memLimit, "memory-limit", "", memoryLimitUsage)
	cmd.Flags().StringVar(&progress, "progress", "auto", "the status line and progress bar on stderr: auto (on a terminal), always or never")
	cmd.Flags().StringVar(&prof.cpu, "cpuprofile", "", "write a CPU profile of the run to FILE (go tool pprof)")
	cmd.Flags().StringVar(&prof.mem, "memprofile", "", "write a heap profile to FILE when the run ends, before its final checkpoint (in-use memory then, and the allocations of the whole run)")
	cmd.Flags().StringVar(&web.addr, "http", "", "serve Prometheus metrics at http://ADDR/metrics and the dashboard at http://ADDR/ while the run lasts (a loopback address unless --insecure)")
	cmd.Flags().BoolVar(&web.insecure, "insecure", false, "allow a non-loopback --http address (metrics and dashboard are then open to anyone who can reach it)")
	cmd.Flags().BoolVar(&web.pprof, "pprof", false, "also serve Go's profiles at http://ADDR/debug/pprof/ on --http (go tool pprof http://ADDR/debug/pprof/heap)")
	return cmd
}

// printRecovered logs the size of the state the engine recovered and how
// long it took, when it recovered any.
func printRecovered(e *engine.Engine) {
	if r, ok := e.Recovered(); ok {
		logger.Info(r.String(), "bytes", r.Bytes, "duration", r.Duration)
	}
}

// checkpointInterval is --checkpoint-interval when it was given, else 0:
// the pipeline file's SET checkpoint_interval (or its 10 s default)
// applies.
func checkpointInterval(cmd *cobra.Command) time.Duration {
	if !cmd.Flags().Changed("checkpoint-interval") {
		return 0
	}
	d, _ := cmd.Flags().GetDuration("checkpoint-interval")
	return d
}

// runPipeline runs file until its bounded sources end or ctx ends; atEnd
// (may be nil) is called once the run ends, before the final checkpoint.
// On a terminal (or with --progress always) stderr shows a status line:
// a progress bar while every source knows how much input it has left.
// Whatever the outcome, the run ends with one summary line on stderr.
func runPipeline(ctx context.Context, file, stateDir string, interval time.Duration, memLimit string, web httpFlags, atEnd func() error, progress string) (err error) {
	// Signals are caught before recovery starts, so a SIGTERM at any point
	// ends the run with a checkpoint instead of killing it.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	src, err := readPipeline(file)
	if err != nil {
		return err
	}
	status := &statusLine{on: progress == "always" || progress == "auto" && term.IsTerminal(int(os.Stderr.Fd()))}
	defer stderrLog.under(status)()
	rep := &runReport{start: time.Now(), width: termWidth()}
	defer func() { rep.print(clearingWriter{os.Stderr, status}, outcome(ctx, err)) }()
	e, err := engine.OpenContext(ctx, engine.Options{StateDir: stateDir, Registry: registry(clearingWriter{os.Stdout, status}), SkipSameDDL: true, Script: src,
		Settings: memorySettings(memLimit), SetMemoryLimit: setMemoryLimit, Logger: logger})
	if err != nil && ctx.Err() != nil {
		return nil // interrupted while recovering (waiting for a source): the state is as it was
	}
	if err != nil {
		return err
	}
	rep.opened(e)
	printRecovered(e)
	stopHTTP, err := web.start(e, nil)
	if err != nil {
		_ = rep.close()
		return err
	}
	defer stopHTTP()
	res, err := e.Exec(ctx, src)
	if err != nil && ctx.Err() != nil {
		return rep.close() // interrupted while starting: a clean stop
	}
	if err != nil {
		_ = rep.close()
		return fmt.Errorf("%s: %w", file, err)
	}
	if res != nil {
		for _, n := range res.Notice {
			fmt.Fprintf(os.Stderr, "NOTICE: %s\n", n)
		}
		if res.Schema != nil {
			printRows(res)
		}
	}
	err = e.Run(ctx, engine.RunOptions{CheckpointInterval: interval, UntilDone: true, OnStep: func(progressed bool) {
		if progressed {
			rep.batches++
		}
		status.draw(rep.status)
	}})
	if err == nil && atEnd != nil {
		err = atEnd()
	}
	if err != nil {
		_ = rep.close()
		return err
	}
	return rep.close()
}

// outcome names how a run ended for its summary line.
func outcome(ctx context.Context, err error) string {
	switch {
	case err != nil:
		return "failed"
	case ctx.Err() != nil:
		return "interrupted"
	}
	return "done"
}

// termWidth is stderr's width in columns (80 when it is no terminal).
func termWidth() int {
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

func fmtWM(wm int64) string {
	if wm == types.MinTime {
		return "-"
	}
	if wm == 1<<63-1 {
		return "end"
	}
	return types.FormatTimestamp(wm)
}

func printRows(r *engine.Result) {
	fmt.Println(strings.Join(r.Schema.Names(), " | "))
	for _, row := range r.Rows {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = v.String()
		}
		fmt.Println(strings.Join(parts, " | "))
	}
}

func testCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "test PATH...",
		Short: "Run sqllogictest files or folders (at parallelism 1 and 4)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ok, err := runSLT(cmd.Context(), args, os.Stdout)
			if err != nil {
				printErr(err)
				return exitError{2}
			}
			if !ok {
				return exitError{1}
			}
			return nil
		},
	}
}

func explainCmd(stateDir *string, check bool) *cobra.Command {
	use, short := "explain FILE.sql", "Print the plans and the contract of every view in FILE"
	if check {
		use, short = "check FILE.sql", "Exit 1 with a list where the contract of FILE has gaps"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  oneArg("one FILE.sql argument"),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := readPipeline(args[0])
			if err != nil {
				return err
			}
			dir, err := os.MkdirTemp("", "streamsql-explain-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			e, err := engine.Open(engine.Options{StateDir: dir, Registry: registry(discard{}), PlanOnly: true})
			if err != nil {
				return err
			}
			defer e.Crash()
			if _, err := e.Exec(cmd.Context(), src); err != nil {
				printErr(err)
				return exitError{1}
			}
			text, gaps := e.Explain()
			if !check {
				fmt.Print(text)
				return nil
			}
			if len(gaps) == 0 {
				fmt.Println("contract complete")
				return nil
			}
			for _, g := range gaps {
				fmt.Println("gap:", g)
			}
			return exitError{1}
		},
	}
}
