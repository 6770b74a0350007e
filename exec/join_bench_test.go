package exec

import (
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkIntervalJoinBufferedRow is q7's interval join per bid: rows of
// seven columns (three strings) keyed by a price that is mostly unique,
// each buffered until the other side's watermark passes its time + 10 s,
// with a watermark every 4096 rows (a batch) purging what expired. One
// op is one row stored, later purged.
func BenchmarkIntervalJoinBufferedRow(b *testing.B) {
	schema := types.Schema{
		{Name: "auction", Type: types.Int}, {Name: "bidder", Type: types.Int}, {Name: "price", Type: types.Int},
		{Name: "channel", Type: types.String}, {Name: "url", Type: types.String},
		{Name: "date_time", Type: types.Timestamp}, {Name: "extra", Type: types.String},
	}
	node := &planner.Join{
		Left: &planner.Scan{Out: schema}, Right: &planner.Scan{Out: schema},
		Kind: planner.IntervalJoin, LeftKeys: []int{2}, RightKeys: []int{2},
		LeftTime: 5, RightTime: 5, Lower: 0, Upper: 10_000_000,
	}
	j := NewJoin(JoinConfig{ID: "j/", Node: node, Late: &lateness.Counters{}})
	rng := rand.New(rand.NewSource(1))
	const batch = 4096
	rows := make([]types.Row, batch)
	b.ReportAllocs()
	b.ResetTimer()
	var ts int64
	for done := 0; done < b.N; done += batch {
		for i := range rows {
			ts += 100 // 10,000 bids per second of event time
			rows[i] = types.Row{types.IntValue(rng.Int63n(1000)), types.IntValue(rng.Int63n(100000)),
				types.IntValue(rng.Int63n(10_000_000)), types.StringValue("channel-1"),
				types.StringValue("https://www.nexmark.com/abc/def/item.htm?query=1"),
				types.TimestampValue(ts), types.StringValue("extra payload")}
		}
		if err := j.Process(0, &Batch{Rows: rows}); err != nil {
			b.Fatal(err)
		}
		if err := j.Watermark(1, ts-4_000_000); err != nil {
			b.Fatal(err)
		}
	}
}
