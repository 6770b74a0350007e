package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/engine"
)

// kafkaRec is one record to produce: key and value as JSON text, an
// empty value a tombstone.
type kafkaRec struct{ key, value string }

// rateChange is one change of the versioned rates table, written as an
// upsert record and as a Debezium change event (prev* is the before
// image of an update or delete).
type rateChange struct {
	op       string // c, u or d
	cur      string
	rate     int64
	ts       string // seconds after 2024-01-01 00:00:00
	prevRate int64
	prevTS   string
}

func (c rateChange) row(rate int64, ts string) string {
	return fmt.Sprintf(`{"cur":%q,"rate":%d,"ts":"2024-01-01 00:00:%s"}`, c.cur, rate, ts)
}

func (c rateChange) upsert() []kafkaRec {
	key := fmt.Sprintf(`{"cur":%q}`, c.cur)
	if c.op == "d" {
		return []kafkaRec{{key, ""}}
	}
	return []kafkaRec{{key, c.row(c.rate, c.ts)}}
}

func (c rateChange) debezium() []kafkaRec {
	key := fmt.Sprintf(`{"cur":%q}`, c.cur)
	switch c.op {
	case "c":
		return []kafkaRec{{key, fmt.Sprintf(`{"before":null,"after":%s,"op":"c"}`, c.row(c.rate, c.ts))}}
	case "u":
		return []kafkaRec{{key, fmt.Sprintf(`{"before":%s,"after":%s,"op":"u"}`, c.row(c.prevRate, c.prevTS), c.row(c.rate, c.ts))}}
	}
	// A delete event with its before image, then the tombstone.
	return []kafkaRec{{key, fmt.Sprintf(`{"payload":{"before":%s,"after":null,"op":"d"}}`, c.row(c.prevRate, c.prevTS))}, {key, ""}}
}

// TestKafkaTablesInTemporalJoins joins a stream with TABLEs fed by an
// upsert topic and by a Debezium topic, FOR SYSTEM_TIME AS OF the
// stream's time (the TABLEs are versioned: a primary key and WATERMARK
// FOR) and AS OF PROCTIME(), and checks the exact joined rows, across
// a Kafka delete (a tombstone; a Debezium "d" event and its tombstone).
// The stream rows waiting for the tables' watermark survive a restart
// between the two steps. Each step waits until both TABLEs hold the
// records produced, so what a stream row meets does not depend on when
// the consumer fetches. It runs in memory, and spilling every key past
// a state_cache_size of 1 over two parallel instances.
func TestKafkaTablesInTemporalJoins(t *testing.T) {
	for name, settings := range map[string]map[string]string{
		"memory":   nil,
		"spilling": {"parallelism": "2", "state_cache_size": "1"},
	} {
		t.Run(name, func(t *testing.T) { kafkaTablesInTemporalJoins(t, settings) })
	}
}

func kafkaTablesInTemporalJoins(t *testing.T, settings map[string]string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "rates_up", "rates_dbz"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	produce := func(changes ...rateChange) {
		t.Helper()
		for _, ch := range changes {
			for topic, recs := range map[string][]kafkaRec{"rates_up": ch.upsert(), "rates_dbz": ch.debezium()} {
				for _, r := range recs {
					rec := &kgo.Record{Topic: topic, Key: []byte(r.key)}
					if r.value != "" {
						rec.Value = []byte(r.value)
					}
					if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	dir := t.TempDir()
	var e *engine.Engine
	open := func() {
		t.Helper()
		if e, err = engine.Open(engine.Options{StateDir: dir, Registry: registry(io.Discard), Settings: settings}); err != nil {
			t.Fatal(err)
		}
	}
	open()
	defer func() { _ = e.Close() }()
	exec := func(sql string) []string {
		t.Helper()
		res, err := e.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		var out []string
		for _, r := range res.Rows {
			out = append(out, r.String())
		}
		return out
	}
	// tablesHold polls (FLUSH, read) until both TABLEs hold want: FLUSH
	// drains only what the sources have fetched.
	tablesHold := func(want string) {
		t.Helper()
		for _, tab := range []string{"ru", "rd"} {
			var got string
			for deadline := time.Now().Add(time.Minute); got != want && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				exec(`FLUSH`)
				got = strings.Join(exec(`SELECT cur, rate FROM `+tab+` ORDER BY cur`), "; ")
			}
			if got != want {
				t.Fatalf("table %s = %q, want %q", tab, got, want)
			}
		}
	}
	exec(`CREATE SOURCE o (id BIGINT, cur VARCHAR, ts TIMESTAMP, WATERMARK FOR ts AS ts)`)
	for name, format := range map[string]string{"ru": "upsert-json", "rd": "debezium-json"} {
		topic := map[string]string{"ru": "rates_up", "rd": "rates_dbz"}[name]
		exec(fmt.Sprintf(`CREATE TABLE %s (cur VARCHAR PRIMARY KEY, rate BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)
			WITH (connector = 'kafka', brokers = '%s', topic = '%s', format = '%s')`, name, c.ListenAddrs()[0], topic, format))
		exec(fmt.Sprintf(`CREATE MATERIALIZED VIEW %s_event AS
			SELECT o.id, r.rate, r.ts AS version FROM o LEFT JOIN %s FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`, name, name))
		exec(fmt.Sprintf(`CREATE MATERIALIZED VIEW %s_inner AS
			SELECT o.id, r.rate FROM o JOIN %s FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`, name, name))
		exec(fmt.Sprintf(`CREATE MATERIALIZED VIEW %s_lookup AS
			SELECT o.id, r.rate FROM o LEFT JOIN %s FOR SYSTEM_TIME AS OF PROCTIME() AS r ON o.cur = r.cur`, name, name))
	}

	// Versions: eur at 0s and 5s, usd at 2s; the tables' watermark is 5s.
	produce(rateChange{op: "c", cur: "eur", rate: 10, ts: "00"},
		rateChange{op: "c", cur: "usd", rate: 20, ts: "02"},
		rateChange{op: "u", cur: "eur", rate: 11, ts: "05", prevRate: 10, prevTS: "00"})
	tablesHold("eur 11; usd 20")
	exec(`INSERT INTO o VALUES (1, 'eur', '2024-01-01 00:00:04'), (2, 'eur', '2024-01-01 00:00:05'),
		(3, 'usd', '2024-01-01 00:00:01'), (4, 'gbp', '2024-01-01 00:00:03'), (5, 'usd', '2024-01-01 00:00:08'),
		(6, 'eur', '2024-01-01 00:00:08')`)
	exec(`FLUSH`)

	// A restart: the versions, the rows waiting and the watermarks come
	// back from the checkpoint, the topics resume from its offsets. Then
	// usd is deleted (a tombstone; a "d" event), eur gets a version at
	// 9s, which moves the tables' watermark to 9s.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	produce(rateChange{op: "d", cur: "usd", prevRate: 20, prevTS: "02"},
		rateChange{op: "u", cur: "eur", rate: 12, ts: "09", prevRate: 11, prevTS: "05"})
	open()
	tablesHold("eur 12")
	exec(`INSERT INTO o VALUES (7, 'usd', '2024-01-01 00:00:09'), (8, 'eur', '2024-01-01 00:00:09')`)
	exec(`FLUSH`)

	want := map[string][]string{
		// Rows up to the 5s watermark join first; rows 5 and 6 (8s) wait
		// for the tables' 9s. The delete of usd (the tombstone, the "d"
		// event) ends usd's validity at its row's version time, 2s: rows 5
		// and 7, not yet joined, find no version.
		"event": {
			"1 10 2024-01-01 00:00:00", "2 11 2024-01-01 00:00:05", "3 NULL NULL", "4 NULL NULL",
			"5 NULL NULL", "6 11 2024-01-01 00:00:05", "7 NULL NULL", "8 12 2024-01-01 00:00:09",
		},
		"inner": {"1 10", "2 11", "6 11", "8 12"},
		// Each row meets the table as it is when processed: rows 1-6
		// before the delete, rows 7 and 8 after it.
		"lookup": {"1 11", "2 11", "3 20", "4 NULL", "5 20", "6 11", "7 NULL", "8 12"},
	}
	for _, tab := range []string{"ru", "rd"} {
		for _, kind := range []string{"event", "inner", "lookup"} {
			got := exec(fmt.Sprintf(`SELECT * FROM %s_%s ORDER BY id`, tab, kind))
			if strings.Join(got, "; ") != strings.Join(want[kind], "; ") {
				t.Errorf("%s_%s:\n got %q\nwant %q", tab, kind, got, want[kind])
			}
		}
	}
}
