package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// bidSchema is the Nexmark bid table as the datagen connector declares it.
var bidSchema = func() types.Schema {
	s, err := datagen.Schema("bid")
	if err != nil {
		panic(err)
	}
	return s
}()

// writeBids writes n Nexmark-like bids as JSON lines (about 200 bytes
// each, as the reference generator's bids): hot auctions and bidders,
// prices spread over five decades, four hot channels, 10 events per ms.
func writeBids(t testing.TB, name string, n int) {
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	channels := []string{"Google", "Facebook", "Baidu", "Apple"}
	x := uint64(42)
	rnd := func() uint64 { // xorshift64
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	var line []byte
	row := make(types.Row, len(bidSchema))
	for i := range n {
		r := rnd()
		ch := channels[r%4]
		if r>>2&1 == 0 {
			ch = fmt.Sprintf("channel-%d", r>>8%10000)
		}
		row[0] = types.IntValue(1000 + int64(i/50)*3 - int64(r>>16%100))
		row[1] = types.IntValue(1000 + int64(i/50) - int64(r>>24%1000))
		row[2] = types.IntValue(int64(r>>32%1_000_000) + 100)
		row[3] = types.StringValue(ch)
		row[4] = types.StringValue("https://www.nexmark.com/" + ch + "/item.htm?query=1&channel_id=" + fmt.Sprint(r>>40%1000))
		row[5] = types.TimestampValue(1704067200_000000 + int64(i)*100)
		row[6] = types.StringValue("kdjwqoeibnsakdpwejxsabvcewiurnclzoqpdnnxsabcdefghijk"[:20+r>>48%30])
		line = append(format.AppendJSON(line[:0], bidSchema, row), '\n')
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBidsFile reads a generated bids file back completely.
func TestBidsFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bids.jsonl")
	writeBids(t, name, 5000)
	src, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "bid", Schema: bidSchema,
		Options: map[string]string{"connector": "file", "path": name}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rows, last := 0, int64(0)
	for {
		b, err := src.Read(context.Background(), 1024)
		if errors.Is(err, connectors.ErrEndOfInput) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Errors) > 0 {
			t.Fatalf("bid line does not decode: %v", b.Errors[0].Err)
		}
		for _, r := range b.Rows {
			if r[5].I <= last || r[3].K != types.String {
				t.Fatalf("row %d: %v", rows, r)
			}
			last = r[5].I
		}
		rows += len(b.Rows)
	}
	if rows != 5000 {
		t.Fatalf("read %d bids, want 5000", rows)
	}
}

// BenchmarkFileSourceBids measures the file source reading and decoding
// JSON bids (line splitting, JSON decoding, batching) in batches of 1024.
func BenchmarkFileSourceBids(b *testing.B) {
	const n = 200_000
	name := filepath.Join(b.TempDir(), "bids.jsonl")
	writeBids(b, name, n)
	fi, _ := os.Stat(name)
	src, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "bid", Schema: bidSchema,
		Options: map[string]string{"connector": "file", "path": name}})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	if err := src.Open(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size() / n)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	rows := 0
	for rows < b.N {
		batch, err := src.Read(ctx, min(1024, b.N-rows))
		if errors.Is(err, connectors.ErrEndOfInput) {
			if err := src.Open(ctx, nil); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		rows += len(batch.Rows)
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "events/s")
}
