package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
)

func bidJSON(id int, name string) string {
	return fmt.Sprintf(`{"id":%d,"name":%q,"price":%d.5}`, id, name, id)
}

// TestSourcePartitions reads a three-partition topic: one engine
// partition per Kafka partition, batches of one partition at a time in
// offset order, the record timestamp as the row's time.
func TestSourcePartitions(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 3)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []rec
	for p := int32(0); p < 3; p++ {
		for i := 0; i < 5; i++ {
			id := int(p)*100 + i
			recs = append(recs, rec{p: p, value: []byte(bidJSON(id, "x")), ts: base.Add(time.Duration(id) * time.Millisecond)})
		}
	}
	produce(t, brokers, topic, recs...)
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic})
	if src.Partitions() != 3 {
		t.Fatalf("Partitions() = %d, want 3", src.Partitions())
	}
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rows := map[int][]int64{}
	next := map[int]int64{}
	for _, b := range readAll(t, src, 15, 2) {
		if b.Ops != nil {
			t.Fatal("append-only source set Ops")
		}
		if len(b.Times) != len(b.Rows) {
			t.Fatalf("Times %d for %d rows", len(b.Times), len(b.Rows))
		}
		for i, r := range b.Rows {
			id := r[0].I
			if int(id/100) != b.Partition {
				t.Fatalf("row %v in batch of partition %d", r, b.Partition)
			}
			if want := base.Add(time.Duration(id) * time.Millisecond).UnixMicro(); b.Times[i] != want {
				t.Fatalf("row %d time %d, want %d", id, b.Times[i], want)
			}
			if r[1].S != "x" || r[2].F != float64(id)+0.5 {
				t.Fatalf("row %v", r)
			}
			rows[b.Partition] = append(rows[b.Partition], id)
		}
		next[b.Partition] = b.Next
	}
	for p := 0; p < 3; p++ {
		want := fmt.Sprint([]int64{int64(p * 100), int64(p*100 + 1), int64(p*100 + 2), int64(p*100 + 3), int64(p*100 + 4)})
		if got := fmt.Sprint(rows[p]); got != want || next[p] != 5 {
			t.Fatalf("partition %d: rows %s next %d, want %s next 5", p, got, next[p], want)
		}
	}
	// Nothing more: an empty batch that keeps the partition's position.
	b, err := src.Read(context.Background(), 10)
	if err != nil || len(b.Rows) != 0 || b.Next != next[b.Partition] {
		t.Fatalf("empty read: %+v, %v", b, err)
	}
}

// TestSourceResume stops after part of the input and reopens at the
// offsets a checkpoint would hold: exactly the rest is read, including
// records produced meanwhile.
func TestSourceResume(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	for p := int32(0); p < 2; p++ {
		var vs []string
		for i := 0; i < 6; i++ {
			vs = append(vs, bidJSON(int(p)*100+i, "a"))
		}
		produce(t, brokers, topic, values(p, vs...)...)
	}
	opts := map[string]string{"brokers": brokers, "topic": topic}
	src := newTestSource(t, testSchema, opts)
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	offs := make([]int64, 2)
	seen := map[int64]int{}
	for _, b := range readAll(t, src, 6, 3) {
		offs[b.Partition] = b.Next
		for _, r := range b.Rows {
			seen[r[0].I]++
		}
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, topic, values(0, bidJSON(50, "late"))...)
	produce(t, brokers, topic, values(1, bidJSON(150, "late"))...)
	src = newTestSource(t, testSchema, opts)
	if err := src.Open(context.Background(), offs); err != nil {
		t.Fatal(err)
	}
	for _, b := range readAll(t, src, 14-6, 100) {
		for _, r := range b.Rows {
			seen[r[0].I]++
		}
	}
	for _, id := range []int64{0, 1, 2, 3, 4, 5, 50, 100, 101, 102, 103, 104, 105, 150} {
		if seen[id] != 1 {
			t.Fatalf("id %d read %d times (all: %v)", id, seen[id], seen)
		}
	}
}

// TestSourceStartupModes covers where a source without checkpointed
// offsets begins, and that it reports the resolved offsets.
func TestSourceStartupModes(t *testing.T) {
	brokers := cluster(t)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		opts  map[string]string
		group int64 // committed offset of group "g" on partition 0, if > 0
		start int64 // the offset the mode resolves to
		want  string
	}{
		{"earliest", map[string]string{}, 0, 0, "[0 1 2 3 10]"},
		{"latest", map[string]string{"scan.startup.mode": "latest"}, 0, 4, "[10]"},
		{"timestamp ms", map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp": fmt.Sprint(base.Add(2 * time.Second).UnixMilli())}, 0, 2, "[2 3 10]"},
		{"timestamp text", map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp": "2024-01-01T00:00:01Z"}, 0, 1, "[1 2 3 10]"},
		{"timestamp after all", map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp": "2030-01-01 00:00:00"}, 0, 4, "[10]"},
		{"group offsets", map[string]string{"scan.startup.mode": "group-offsets", "group": "g"}, 3, 3, "[3 10]"},
		{"group without offsets", map[string]string{"scan.startup.mode": "group-offsets", "group": "none"}, 0, 0, "[0 1 2 3 10]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topic := newTopic(t, brokers, 1)
			var recs []rec
			for i := 0; i < 4; i++ {
				recs = append(recs, rec{value: []byte(bidJSON(i, "old")), ts: base.Add(time.Duration(i) * time.Second)})
			}
			produce(t, brokers, topic, recs...)
			if tc.group > 0 {
				var os kadm.Offsets
				os.AddOffset(topic, 0, tc.group, -1)
				if _, err := kadm.NewClient(client(t, brokers)).CommitOffsets(context.Background(), "g", os); err != nil {
					t.Fatal(err)
				}
			}
			tc.opts["brokers"], tc.opts["topic"] = brokers, topic
			src := newTestSource(t, testSchema, tc.opts)
			if err := src.Open(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if tc.start > 0 {
				// The first read reports where the source starts, so a
				// checkpoint taken before any row arrives holds it.
				b, err := src.Read(context.Background(), 100)
				if err != nil || len(b.Rows) != 0 || b.Partition != 0 || b.Next != tc.start {
					t.Fatalf("first read: %d rows, partition %d, Next %d, err %v; want an empty batch at %d", len(b.Rows), b.Partition, b.Next, err, tc.start)
				}
			}
			produce(t, brokers, topic, rec{value: []byte(bidJSON(10, "new")), ts: base.Add(time.Hour)})
			var ids []int64
			deadline := time.Now().Add(time.Minute)
			for (len(ids) == 0 || ids[len(ids)-1] != 10) && time.Now().Before(deadline) {
				b, err := src.Read(context.Background(), 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range b.Rows {
					ids = append(ids, r[0].I)
				}
			}
			if got := fmt.Sprint(ids); got != tc.want {
				t.Fatalf("read %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSourcePoison reports undecodable records with partition, offset and
// raw bytes, keeps the good ones and moves Next past all of them.
func TestSourcePoison(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	produce(t, brokers, topic, values(1, bidJSON(1, "a"), `{"id": oops`, `{"id":"x"}`, `{"id":2,"price":"cheap"}`, bidJSON(3, "b"))...)
	produce(t, brokers, topic, rec{p: 1}) // a tombstone on an append-only source
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var rows []types.Row
	var errs []connectors.DecodeError
	var next int64
	for _, b := range readAll(t, src, 6, 10) {
		rows = append(rows, b.Rows...)
		errs = append(errs, b.Errors...)
		next = b.Next
	}
	if len(rows) != 2 || rows[0][0].I != 1 || rows[1][0].I != 3 || next != 6 {
		t.Fatalf("rows %v next %d", rows, next)
	}
	want := []struct {
		off      int64
		raw, err string
	}{
		{1, `{"id": oops`, "cannot parse JSON"},
		{2, `{"id":"x"}`, `column id: want BIGINT, got string "x"`},
		{3, `{"id":2,"price":"cheap"}`, "column price: want DOUBLE"},
		{5, ``, "tombstone"},
	}
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, w := range want {
		e := errs[i]
		if e.Partition != 1 || e.Offset != w.off || string(e.Raw) != w.raw || !strings.Contains(e.Err.Error(), w.err) {
			t.Fatalf("error %d = {p %d off %d raw %q err %v}, want offset %d raw %q err ~%q", i, e.Partition, e.Offset, e.Raw, e.Err, w.off, w.raw, w.err)
		}
	}
}

// TestSourceCSV decodes CSV records in column order.
func TestSourceCSV(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	produce(t, brokers, topic, values(0, `1,"a,b",2.5`, `2;x;1`, `3,,`)...)
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic, "format": "csv"})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	bs := readAll(t, src, 3, 10)
	var got []string
	for _, b := range bs {
		for _, r := range b.Rows {
			got = append(got, r.String())
		}
		for _, e := range b.Errors {
			got = append(got, fmt.Sprintf("error@%d", e.Offset))
		}
	}
	if s := strings.Join(got, " | "); s != "1 a,b 2.5 | 3 NULL NULL | error@1" {
		t.Fatalf("got %s", s)
	}
}

func changes(t *testing.T, bs []connectors.Batch) []string {
	t.Helper()
	var out []string
	for _, b := range bs {
		if len(b.Ops) != len(b.Rows) {
			t.Fatalf("%d ops for %d rows", len(b.Ops), len(b.Rows))
		}
		for i, r := range b.Rows {
			out = append(out, b.Ops[i].String()+" "+r.String())
		}
		for _, e := range b.Errors {
			out = append(out, fmt.Sprintf("error@%d %v", e.Offset, e.Err))
		}
	}
	return out
}

// TestSourceUpsertJSON reads an upsert topic: the key (a JSON object or a
// bare scalar) identifies the row, a tombstone deletes it.
func TestSourceUpsertJSON(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	produce(t, brokers, topic,
		rec{key: []byte(`{"id":1}`), value: []byte(`{"id":1,"name":"a","price":1}`)},
		rec{key: []byte(`2`), value: []byte(`{"name":"b"}`)}, // the key fills the missing id
		rec{key: []byte(`{"id":1}`), value: []byte(`{"id":1,"name":"a2","price":2}`)},
		rec{key: []byte(`{"id":1}`)},                     // tombstone
		rec{key: []byte(`2`)},                            // tombstone with a bare key
		rec{key: []byte(`{"id":"x"}`)},                   // poison key
		rec{value: []byte(`{"name":"no key anywhere"}`)}, // poison: no key
		rec{key: []byte(`3`), value: []byte(`not json`)}, // poison value
	)
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic, "format": "upsert-json"})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(changes(t, readAll(t, src, 8, 100)), "\n")
	want := strings.Join([]string{
		"upsert 1 a 1",
		"upsert 2 b NULL",
		"upsert 1 a2 2",
		"delete 1 NULL NULL",
		"delete 2 NULL NULL",
		`error@5 offset 5: tombstone: key: column id: want BIGINT, got string "x"`,
		"error@6 offset 6: key column id is NULL",
		"error@7 offset 7: cannot parse JSON: unexpected value found: \"not json\"; unparsed tail: \"not json\"",
	}, "\n")
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestSourceUpsertCompositeKey maps a JSON object key to several key
// columns, and a plain (non-JSON) string key to a VARCHAR key column.
func TestSourceUpsertCompositeKey(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	produce(t, brokers, topic,
		rec{key: []byte(`{"NAME":"k","id":7}`)},
		rec{key: []byte(`plain`), value: []byte(`{"price":3}`)},
	)
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic, "format": "upsert-json", "key": "id, name"})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(changes(t, readAll(t, src, 2, 100)), "\n")
	want := "delete 7 k NULL\nerror@1 offset 1: key \"plain\" is not a JSON object with the 2 key columns"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	topic2 := newTopic(t, brokers, 1)
	produce(t, brokers, topic2, rec{key: []byte(`plain`)})
	src = newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic2, "format": "upsert-json", "key": "name"})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(changes(t, readAll(t, src, 1, 100)), ""); got != "delete NULL plain NULL" {
		t.Fatalf("got %s", got)
	}
}

// TestSourceDebezium reads Debezium change events, plain and wrapped in
// {"schema","payload"}; the tombstone after a delete is skipped.
func TestSourceDebezium(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	produce(t, brokers, topic,
		rec{key: []byte(`{"id":1}`), value: []byte(`{"before":null,"after":{"id":1,"name":"a","price":1.5},"op":"c","ts_ms":1}`)},
		rec{key: []byte(`{"id":2}`), value: []byte(`{"before":null,"after":{"id":2,"name":"b","price":2},"op":"r"}`)},
		rec{key: []byte(`{"schema":{},"payload":{"id":1}}`), value: []byte(`{"schema":{"type":"struct"},"payload":{"before":{"id":1,"name":"a","price":1.5},"after":{"id":1,"name":"a2","price":3},"op":"u"}}`)},
		rec{key: []byte(`{"id":2}`), value: []byte(`{"before":{"id":2,"name":"b","price":2},"after":null,"op":"d"}`)},
		rec{key: []byte(`{"id":2}`)}, // tombstone: skipped
		rec{key: []byte(`{"schema":{},"payload":{"id":1}}`), value: []byte(`{"schema":{},"payload":{"before":null,"after":null,"op":"d"}}`)},
		rec{key: []byte(`{"id":9}`), value: []byte(`{"op":"t"}`)},
		rec{key: []byte(`{"id":9}`), value: []byte(`{"after":{"id":"nine"},"op":"c"}`)},
	)
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic, "format": "debezium-json"})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	bs := readAll(t, src, 7, 100)
	got := strings.Join(changes(t, bs), "\n")
	want := strings.Join([]string{
		"upsert 1 a 1.5",
		"upsert 2 b 2",
		"upsert 1 a2 3",
		"delete 2 b 2",
		"delete 1 NULL NULL",
		`error@6 offset 6: change event op "t" is not supported (want c, r, u or d)`,
		`error@7 offset 7: after: column id: want BIGINT, got string "nine"`,
	}, "\n")
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if last := bs[len(bs)-1]; last.Next != 8 {
		t.Fatalf("Next = %d, want 8", last.Next)
	}
}

// TestSourceOptions checks option validation errors.
func TestSourceOptions(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	tests := []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"brokers": brokers, "topc": topic}, "unknown option 'topc' for connector kafka; did you mean 'topic'?"},
		{map[string]string{"brokers": brokers}, "needs option 'topic'"},
		{map[string]string{"brokers": brokers, "topic": "missing"}, "topic missing does not exist"},
		{map[string]string{"brokers": brokers, "topic": topic, "format": "avro"}, "option 'format' must be one of"},
		{map[string]string{"brokers": brokers, "topic": topic, "scan.startup.mode": "timestamp"}, "needs option 'scan.startup.timestamp'"},
		{map[string]string{"brokers": brokers, "topic": topic, "scan.startup.mode": "timestamp", "scan.startup.timestamp": "soon"}, "invalid timestamp"},
		{map[string]string{"brokers": brokers, "topic": topic, "scan.startup.mode": "group-offsets"}, "needs option 'group'"},
		{map[string]string{"brokers": brokers, "topic": topic, "format": "upsert-json", "key": "nope"}, "use it in CREATE TABLE, not CREATE SOURCE"},
		{map[string]string{"brokers": brokers, "topic": topic, "csv.header": "true"}, "unknown option 'csv.header'"},
	}
	for _, tc := range tests {
		tc.opts["connector"] = "kafka"
		_, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: testSchema, Options: tc.opts})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err = %v, want %q", tc.opts, err, tc.err)
		}
	}
	for _, tc := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"brokers": brokers, "topic": topic, "format": "upsert-json", "key": "nope"}, `option 'key': no column "nope"`},
		{map[string]string{"brokers": brokers, "topic": topic, "format": "json"}, "a TABLE reads a changelog"},
	} {
		tc.opts["connector"] = "kafka"
		_, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: testSchema, Options: tc.opts, Table: true, Key: []int{0}})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err = %v, want %q", tc.opts, err, tc.err)
		}
	}
}

// TestSourceBoundedBuffer: the source takes at most poll.max_records from
// the client at once and polls again only when they are all handed out.
func TestSourceBoundedBuffer(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	for p := int32(0); p < 2; p++ {
		var vs []string
		for i := 0; i < 10; i++ {
			vs = append(vs, bidJSON(int(p)*100+i, "b"))
		}
		produce(t, brokers, topic, values(p, vs...)...)
	}
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic, "poll.max_records": "4"}).(*source)
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := 0
	deadline := time.Now().Add(time.Minute)
	for got < 20 && time.Now().Before(deadline) {
		b, err := src.Read(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		got += len(b.Rows)
		buffered := 0
		for _, p := range src.pending {
			buffered += len(p)
		}
		if buffered > 4 {
			t.Fatalf("%d records buffered, poll.max_records is 4", buffered)
		}
	}
	if got != 20 {
		t.Fatalf("read %d rows, want 20", got)
	}
}

// TestResumePastEndOfRecreatedTopic: offsets from a checkpoint that lie
// beyond a partition's end (the topic was recreated) are refused instead
// of silently waiting for records that will never come at those offsets.
func TestResumePastEndOfRecreatedTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	src, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: testSchema, Options: map[string]string{"connector": "kafka", "brokers": c.ListenAddrs()[0], "topic": "t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	err = src.Open(context.Background(), []int64{500})
	if err == nil || !strings.Contains(err.Error(), "was the topic recreated?") {
		t.Fatalf("open past the end: %v", err)
	}
}

// TestSourceDiscoversNewPartitions: partitions added to the topic while
// the source runs are found within the discovery interval and read from
// their start, even with scan.startup.mode = latest; a source resumed
// from offsets taken before the topic grew reads the new partitions from
// their start too.
func TestSourceDiscoversNewPartitions(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	opts := func() map[string]string {
		return map[string]string{"brokers": brokers, "topic": topic, "scan.startup.mode": "latest",
			"scan.topic-partition-discovery.interval": "100ms"}
	}
	src := newTestSource(t, testSchema, opts())
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, topic, values(1, bidJSON(1, "old"))...)
	offs := []int64{0, 0}
	for _, b := range readAll(t, src, 1, 10) {
		offs[b.Partition] = b.Next
	}
	resp, err := kadm.NewClient(client(t, brokers)).UpdatePartitions(context.Background(), 4, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, topic, values(2, bidJSON(200, "new"), bidJSON(201, "new"))...)
	produce(t, brokers, topic, values(3, bidJSON(300, "new"))...)
	seen := map[int64]int{}
	for _, b := range readAll(t, src, 3, 10) {
		if b.Partition >= src.Partitions() {
			t.Fatalf("a batch of partition %d while Partitions() = %d", b.Partition, src.Partitions())
		}
		for _, r := range b.Rows {
			if int(r[0].I/100) != b.Partition {
				t.Fatalf("row %v in a batch of partition %d", r, b.Partition)
			}
			seen[r[0].I]++
		}
	}
	if src.Partitions() != 4 || len(seen) != 3 || seen[200] != 1 || seen[201] != 1 || seen[300] != 1 {
		t.Fatalf("after the topic grew to 4 partitions: Partitions() = %d, rows %v", src.Partitions(), seen)
	}
	_ = src.Close()

	// Resumed from two offsets, the source knows four partitions and
	// reads the two it has no offset for from their start.
	src = newTestSource(t, testSchema, opts())
	if src.Partitions() != 4 {
		t.Fatalf("a new source on the grown topic: Partitions() = %d", src.Partitions())
	}
	if err := src.Open(context.Background(), offs); err != nil {
		t.Fatal(err)
	}
	seen = map[int64]int{}
	for _, b := range readAll(t, src, 3, 10) {
		for _, r := range b.Rows {
			seen[r[0].I]++
		}
	}
	if len(seen) != 3 || seen[1] != 0 {
		t.Fatalf("resumed: rows %v, want 200, 201 and 300 once", seen)
	}
}
