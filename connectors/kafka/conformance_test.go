package kafka

import (
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/conformance"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// TestConformanceSource runs the shared source suite against kfake: one
// fresh topic per case.
func TestConformanceSource(t *testing.T) {
	brokers := cluster(t)
	conformance.RunSource(t, conformance.SourceTarget{
		Factory: SourceFactory(),
		Setup: func(t *testing.T, parts int) map[string]string {
			return map[string]string{"connector": "kafka", "brokers": brokers, "topic": newTopic(t, brokers, parts), "format": "json"}
		},
		Append: func(t *testing.T, opts map[string]string, p int, records ...[]byte) {
			recs := make([]rec, len(records))
			for i, r := range records {
				recs[i] = rec{p: int32(p), value: r}
			}
			produce(t, brokers, opts["topic"], recs...)
		},
	})
}

// TestConformanceSink runs the shared sink suite in both delivery modes.
func TestConformanceSink(t *testing.T) {
	brokers := cluster(t)
	for _, delivery := range []string{atLeastOnce, exactlyOnce} {
		t.Run(delivery, func(t *testing.T) {
			conformance.RunSink(t, conformance.SinkTarget{
				Factory: SinkFactory(),
				Setup: func(t *testing.T) map[string]string {
					topic := newTopic(t, brokers, 2)
					// Each case gets its own progress topic and transactional
					// id: the suite reuses one sink name.
					return map[string]string{"connector": "kafka", "brokers": brokers, "topic": topic, "delivery": delivery,
						"progress_topic": topic + "_progress", "transactional_id": topic}
				},
				Read:        readTable,
				ExactlyOnce: delivery == exactlyOnce,
			})
		})
	}
}

// readTable applies the committed records of the sink's topic by key: a
// value upserts, a tombstone deletes.
func readTable(t *testing.T, opts map[string]string) []types.Row {
	t.Helper()
	dec, err := format.NewDecoder("json", conformance.Schema, connectors.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]types.Row{}
	var order []string
	for _, r := range committed(t, opts["brokers"], opts["topic"]) {
		k := string(r.Key)
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		if r.Value == nil {
			byKey[k] = nil
			continue
		}
		row, err := dec.Decode(r.Value)
		if err != nil {
			t.Fatalf("record %s: %v", r.Value, err)
		}
		if want := fmt.Sprintf(`{"id":%d}`, row[0].I); k != want {
			t.Fatalf("record key %s for row %v, want %s", k, row, want)
		}
		byKey[k] = row
	}
	var out []types.Row
	for _, k := range order {
		if byKey[k] != nil {
			out = append(out, byKey[k])
		}
	}
	return out
}
