package kafka

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// TestSourceBacklogAndBytes: before the first read the backlog of each
// partition is its record count (the end offsets read at Open); it falls
// as batches are handed out and is 0 once everything is read, also after
// more records arrive and are read. Bytes sum the records' values, poison
// ones included.
func TestSourceBacklogAndBytes(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	vals := []string{bidJSON(1, "a"), bidJSON(2, "b"), "not json", bidJSON(3, "c")}
	var want int64
	for _, v := range vals {
		want += int64(len(v))
	}
	produce(t, brokers, topic, values(0, vals...)...)
	produce(t, brokers, topic, values(1, vals[:2]...)...)
	want += int64(len(vals[0]) + len(vals[1]))
	src := newTestSource(t, testSchema, map[string]string{"brokers": brokers, "topic": topic})
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	bl := src.(connectors.Backlogger)
	if got := fmt.Sprint(bl.Backlog()); got != "[4 2]" {
		t.Fatalf("backlog before reading = %s, want [4 2]", got)
	}
	var bytes int64
	for _, b := range readAll(t, src, 6, 1) {
		bytes += b.Bytes
		if lag := bl.Backlog()[b.Partition]; lag < 0 || lag > 3 {
			t.Fatalf("backlog of partition %d after a batch = %d", b.Partition, lag)
		}
	}
	if got := fmt.Sprint(bl.Backlog()); got != "[0 0]" {
		t.Fatalf("backlog after reading everything = %s, want [0 0]", got)
	}
	if bytes != want {
		t.Fatalf("bytes read = %d, want %d", bytes, want)
	}
	produce(t, brokers, topic, values(1, vals[3])...)
	readAll(t, src, 1, 10)
	if got := fmt.Sprint(bl.Backlog()); got != "[0 0]" {
		t.Fatalf("backlog after the new record = %s, want [0 0]", got)
	}
}
