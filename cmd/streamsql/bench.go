package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/bench"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// benchCmd runs the Nexmark benchmark (bench/*.sql) and prints the median
// figures per query; see docs/benchmarks.md.
func benchCmd() *cobra.Command {
	var (
		events   int64
		repeats  int
		queries  string
		jsonFile string
		bidsFile string
		bidShape string
		tempDir  string
		asJSON   bool
		interval time.Duration
		prof     profiles
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the Nexmark benchmark queries over datagen into a blackhole sink",
		Long: `bench runs the Nexmark queries of bench/*.sql over the in-process datagen
source (a fixed event count, as fast as possible) into a blackhole sink,
checkpointing every 10 s, and prints per query the median over the repeats
of: events (the whole Nexmark sequence, all event types), wall and CPU
seconds, events/s per core (events ÷ CPU s) and with all cores (events ÷
wall s), peak RSS and the state size at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if bidsFile != "" {
				return writeBidsFile(bidsFile, bidShape, events)
			}
			stopProf, err := prof.start()
			if err != nil {
				return err
			}
			defer func() { _ = stopProf() }()
			cfg := bench.Config{Registry: registry(io.Discard), TempDir: tempDir, CheckpointInterval: interval}
			var reps []bench.Report
			failed := false
			if jsonFile != "" {
				rep, err := benchFile(ctx, cfg, jsonFile, repeats)
				if err != nil && rep.Failed == "" {
					printErr(err)
					return exitError{1}
				}
				failed = rep.Failed != ""
				reps = append(reps, rep)
			} else {
				for _, q := range strings.Split(queries, ",") {
					q = strings.TrimSpace(q)
					if q == "" {
						continue
					}
					logger.Info("bench: query started", "query", q, "events", events, "repeats", repeats)
					start := time.Now()
					rep, err := bench.RunWith(ctx, cfg, q, events, repeats)
					if err != nil && rep.Failed == "" {
						printErr(err) // an unknown query, a bad file
						return exitError{1}
					}
					if ctx.Err() != nil {
						return ctx.Err()
					}
					if rep.Failed != "" {
						failed = true
						logger.Error("bench: query failed", "query", q, "error", rep.Failed)
					} else if rep.NotSupported != "" {
						logger.Warn("bench: query not supported", "query", q, "reason", rep.NotSupported)
					} else {
						logger.Info("bench: query done", "query", q, "elapsed", time.Since(start).Round(100*time.Millisecond))
					}
					reps = append(reps, rep)
				}
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(reps); err != nil {
					return err
				}
			} else if err := bench.WriteTable(os.Stdout, reps); err != nil {
				return err
			}
			if failed {
				return exitError{1} // the table shows which query failed
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&events, "events", 1_000_000, "events of the Nexmark sequence per run (all types; bids are 92%)")
	f.IntVar(&repeats, "repeats", 3, "runs per query; the median is reported")
	f.StringVar(&queries, "queries", strings.Join(bench.Queries, ","), "comma-separated queries of bench/ (or paths to .sql files)")
	f.StringVar(&jsonFile, "json-file", "", "run q0 over the JSON-lines bids in FILE (parsing included)")
	f.StringVar(&bidsFile, "write-bids", "", "write --events Nexmark bids as JSON lines to FILE (the input of --json-file) and exit")
	f.StringVar(&bidShape, "bid-shape", "datagen", "what --write-bids writes: datagen (every bid column, timestamps as text, 10,000 bids/s) or peers (auction, bidder, price and date_time in epoch ms, 1,000 bids/s, up to 2 s out of order: bench/peers)")
	f.StringVar(&tempDir, "temp-dir", "", "where the per-run state directories are created (default: the system temp dir)")
	f.DurationVar(&interval, "checkpoint-interval", bench.CheckpointInterval, "wall time between checkpoints (the protocol's is 10s; checkpoints cannot be turned off)")
	f.StringVar(&prof.cpu, "cpuprofile", "", "write a CPU profile of all the runs to FILE (go tool pprof)")
	f.BoolVar(&asJSON, "json", false, "print the reports (every run) as JSON instead of a table")
	return cmd
}

// benchFile runs q0 over a JSON-lines file of bids; events is the number
// of lines.
func benchFile(ctx context.Context, cfg bench.Config, path string, repeats int) (bench.Report, error) {
	if _, ok := cfg.Registry.Sources["file"]; !ok {
		return bench.Report{Query: "q0-json", NotSupported: "no file connector in this build; see docs/benchmarks.md"}, nil
	}
	n, err := countLines(path)
	if err != nil {
		return bench.Report{}, err
	}
	return bench.RunSQL(ctx, cfg, "q0-json", bench.FileSQL(path), n, repeats)
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// writeBidsFile writes n Nexmark bids (datagen's, seed 42) as JSON lines
// in the given shape (see bidWriter).
func writeBidsFile(path, shape string, n int64) error {
	line, err := bidWriter(shape)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for i := int64(0); i < n; i++ {
		buf = line(buf[:0], i)
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Peers bids: 1,000 per second of event time, each shifted back by up to
// 2 s, so a 2 s watermark delay drops none of them.
const (
	peersRate     = 1000
	peersDisorder = 2 * types.Second
)

// bidWriter returns the function appending bid n as one JSON line in the
// shape --bid-shape names: "datagen" is every column of datagen's bid
// (timestamps as text, 10,000 bids per second of event time, in order);
// "peers" is the four columns bench/peers compares engines on, {auction,
// bidder, price, date_time} with date_time in epoch milliseconds, 1,000
// bids per second and up to 2 s out of order. Both are deterministic
// (seed 42).
func bidWriter(shape string) (func(dst []byte, n int64) []byte, error) {
	schema, _ := datagen.Schema("bid")
	row := make(types.Row, len(schema))
	switch shape {
	case "datagen":
		g := datagen.NewGenerator(datagen.DefaultConfig())
		return func(dst []byte, n int64) []byte {
			g.Bid(n, row)
			return append(format.AppendJSON(dst, schema, row), '\n')
		}, nil
	case "peers":
		cfg := datagen.DefaultConfig()
		cfg.Rate, cfg.OutOfOrderness = peersRate, peersDisorder
		g := datagen.NewGenerator(cfg)
		auction, bidder, price, at := schema.Index("auction"), schema.Index("bidder"), schema.Index("price"), schema.Index("date_time")
		return func(dst []byte, n int64) []byte {
			g.Bid(n, row)
			dst = strconv.AppendInt(append(dst, `{"auction":`...), row[auction].I, 10)
			dst = strconv.AppendInt(append(dst, `,"bidder":`...), row[bidder].I, 10)
			dst = strconv.AppendInt(append(dst, `,"price":`...), row[price].I, 10)
			dst = strconv.AppendInt(append(dst, `,"date_time":`...), row[at].I/1000, 10)
			return append(dst, "}\n"...)
		}, nil
	}
	return nil, fmt.Errorf("--bid-shape %q: want datagen or peers", shape)
}
