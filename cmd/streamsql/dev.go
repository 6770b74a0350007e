package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/internal/pgserver"
	"github.com/streamsql/streamsql/types"
)

// devCmd starts local stand-ins for the services a pipeline talks to, so a
// newcomer can run the Kafka → Postgres example on one machine: an
// in-process Kafka (franz-go's kfake, spoken to over TCP by any client)
// fed with Nexmark bids, and a throwaway Postgres.
func devCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Start a local Kafka (kfake) or Postgres for trying pipelines",
	}
	cmd.AddCommand(devKafkaCmd(), devPostgresCmd())
	return cmd
}

// printing reports a command's error on stderr (the root command silences
// cobra's own reporting) and exits 1.
func printing(run func(cmd *cobra.Command, args []string) error) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := run(cmd, args); err != nil {
			printErr(err)
			return exitError{1}
		}
		return nil
	}
}

func devKafkaCmd() *cobra.Command {
	var (
		port       int
		topics     []string
		partitions int
		bids       int64
		rate       int64
		poison     float64
		produce    string
	)
	cmd := &cobra.Command{
		Use:   "kafka",
		Short: "Run an in-process Kafka (kfake) until Ctrl-C, optionally producing Nexmark bids as JSON",
		RunE: printing(func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := kfake.NewCluster(kfake.Ports(port), kfake.SeedTopics(int32(partitions), topics...), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(partitions))
			if err != nil {
				return err
			}
			defer c.Close()
			brokers := strings.Join(c.ListenAddrs(), ",")
			fmt.Printf("kafka (kfake) listening on %s; topics %v with %d partitions; Ctrl-C stops it (its data is in memory)\n", brokers, topics, partitions)
			if produce != "" {
				cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(produce))
				if err != nil {
					return err
				}
				defer cl.Close()
				fmt.Printf("producing %s bids as JSON to %s at %d/s (%.2f%% malformed)\n", countText(bids), produce, rate, poison*100)
				n, err := produceBids(ctx, cl, bids, rate, poison)
				fmt.Printf("produced %d records\n", n)
				if err != nil && ctx.Err() == nil {
					return err
				}
			}
			<-ctx.Done()
			return nil
		}),
	}
	cmd.Flags().IntVar(&port, "port", 9092, "TCP port on 127.0.0.1")
	cmd.Flags().StringSliceVar(&topics, "topic", []string{"bids"}, "topics to create")
	cmd.Flags().IntVar(&partitions, "partitions", 4, "partitions per topic")
	cmd.Flags().StringVar(&produce, "produce", "", "produce Nexmark bids as JSON lines to this topic")
	cmd.Flags().Int64Var(&bids, "bids", 0, "how many bids to produce (0: until Ctrl-C)")
	cmd.Flags().Int64Var(&rate, "rate", 1000, "bids per second of wall time (0: as fast as possible)")
	cmd.Flags().Float64Var(&poison, "poison", 0, "fraction of records replaced by malformed JSON (e.g. 0.01)")
	return cmd
}

func countText(n int64) string {
	if n == 0 {
		return "unbounded"
	}
	return strconv.FormatInt(n, 10)
}

// produceBids produces n Nexmark bids (0: until ctx ends) as JSON records
// at rate per second of wall time (0: unthrottled), keyed by auction so a
// partition holds an auction's bids in order. A fraction poison of them
// is replaced by malformed JSON, deterministically. Bid event times follow
// the datagen defaults (1 ms apart from 2024-01-01 00:00:00).
func produceBids(ctx context.Context, cl *kgo.Client, n, rate int64, poison float64) (int64, error) {
	g := datagen.NewGenerator(datagen.Config{Seed: datagen.DefaultSeed, Rate: 1000, BaseTime: datagen.DefaultBaseTime})
	schema, _ := datagen.Schema("bid")
	row := make(types.Row, len(schema))
	rnd := rand.New(rand.NewPCG(7, 11))
	start := time.Now()
	var sent int64
	errc := make(chan error, 1)
	for i := int64(0); n == 0 || i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		if rate > 0 && i%100 == 0 {
			if ahead := time.Duration(float64(i)/float64(rate)*float64(time.Second)) - time.Since(start); ahead > 0 {
				select {
				case <-time.After(ahead):
				case <-ctx.Done():
				}
			}
		}
		g.Bid(i, row)
		val := format.AppendJSON(nil, schema, row)
		if poison > 0 && rnd.Float64() < poison {
			val = append([]byte(`{"auction": oops `), val[:len(val)/3]...)
		}
		rec := &kgo.Record{Key: strconv.AppendInt(nil, row[0].I, 10), Value: val}
		cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				select {
				case errc <- err:
				default:
				}
			}
		})
		sent++
		select {
		case err := <-errc:
			return sent, err
		default:
		}
	}
	if err := cl.Flush(ctx); err != nil {
		return sent, err
	}
	select {
	case err := <-errc:
		return sent, err
	default:
	}
	return sent, nil
}

func devPostgresCmd() *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "postgres",
		Short: "Run a throwaway Postgres (PostgreSQL 15 binaries from /usr/lib/postgresql/15/bin) until Ctrl-C",
		Long: `Run a throwaway Postgres until Ctrl-C, with trust authentication for the
user postgres on 127.0.0.1. Its data lives in a temporary directory that
Ctrl-C deletes. As root, initdb and postgres run as the postgres OS user.`,
		RunE: printing(func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := pgserver.StartOnPort(port)
			if err != nil {
				if port != 0 {
					return fmt.Errorf("%w (is another Postgres running? pick another port with --port, or --port 0 for any free one)", err)
				}
				return err
			}
			defer s.Close()
			fmt.Printf("postgres listening; DSN: %s\nCtrl-C stops it and deletes its data\n", s.DSN())
			<-ctx.Done()
			return nil
		}),
	}
	cmd.Flags().IntVar(&port, "port", 5432, "TCP port on 127.0.0.1 (0: any free port)")
	return cmd
}
