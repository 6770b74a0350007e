package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// cluster starts an in-process Kafka (kfake) on a TCP port; the real
// franz-go client talks to it over the network.
func cluster(t testing.TB, opts ...kfake.Opt) string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

var topicSeq atomic.Int64

// newTopic creates a fresh topic with parts partitions.
func newTopic(t testing.TB, brokers string, parts int) string {
	t.Helper()
	name := fmt.Sprintf("t%d", topicSeq.Add(1))
	cl := client(t, brokers)
	resp, err := kadm.NewClient(cl).CreateTopic(context.Background(), int32(parts), 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func client(t testing.TB, brokers string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// rec is a record to produce in tests.
type rec struct {
	p     int32
	key   []byte
	value []byte
	ts    time.Time
}

// produce writes records synchronously, each to its partition.
func produce(t testing.TB, brokers, topic string, recs ...rec) {
	t.Helper()
	cl := client(t, brokers)
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: topic, Partition: r.p, Key: r.key, Value: r.value, Timestamp: r.ts}
	}
	if err := cl.ProduceSync(context.Background(), krs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// values makes records with the given values on partition p.
func values(p int32, vs ...string) []rec {
	out := make([]rec, len(vs))
	for i, v := range vs {
		out[i] = rec{p: p, value: []byte(v)}
	}
	return out
}

var testSchema = types.Schema{
	{Name: "id", Type: types.Int},
	{Name: "name", Type: types.String},
	{Name: "price", Type: types.Float},
}

func newTestSource(t testing.TB, schema types.Schema, opts map[string]string) connectors.Source {
	t.Helper()
	opts["connector"] = "kafka"
	f := strings.ToLower(opts["format"])
	table := f == "upsert-json" || f == "debezium-json"
	src, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "src", Schema: schema, Options: opts, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src
}

// readAll reads until at least n rows+errors arrived (a minute at most) and
// returns every non-empty batch.
func readAll(t testing.TB, src connectors.Source, n, max int) []connectors.Batch {
	t.Helper()
	var out []connectors.Batch
	got := 0
	deadline := time.Now().Add(time.Minute)
	for got < n && time.Now().Before(deadline) {
		b, err := src.Read(context.Background(), max)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Rows)+len(b.Errors) > max {
			t.Fatalf("batch of %d records for max %d", len(b.Rows)+len(b.Errors), max)
		}
		if len(b.Rows) > 0 || len(b.Errors) > 0 {
			out = append(out, b)
			got += len(b.Rows) + len(b.Errors)
		}
	}
	if got < n {
		t.Fatalf("read %d records, want %d", got, n)
	}
	return out
}

// committed reads every record of topic a read_committed consumer sees,
// up to the last stable offsets (control records tell it where it is).
func committed(t testing.TB, brokers, topic string) []*kgo.Record {
	t.Helper()
	ctx := context.Background()
	ends, err := kadm.NewClient(client(t, brokers)).ListCommittedOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int64{}
	at := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
			at[o.Partition] = kgo.NewOffset().AtStart()
		}
	})
	if len(want) == 0 {
		return nil
	}
	cl := client(t, brokers, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}))
	var out []*kgo.Record
	pctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for len(want) > 0 {
		fs := cl.PollFetches(pctx)
		if err := pctx.Err(); err != nil {
			t.Fatalf("reading %s: %v (still waiting for %v)", topic, err, want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := want[r.Partition]; ok && r.Offset < end {
				if !r.Attrs.IsControl() {
					out = append(out, r)
				}
				if r.Offset >= end-1 {
					delete(want, r.Partition)
				}
			}
		})
	}
	return out
}
