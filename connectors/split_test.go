package connectors

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestSplit(t *testing.T) {
	var in []Change
	for k := int64(0); k < 1000; k++ {
		// Even keys only: a hash whose low bits follow the key's would put
		// them all in one part of two.
		in = append(in, Change{Upsert, types.Row{types.IntValue(2 * (k % 500)), types.StringValue("v"), types.IntValue(k)}})
	}
	for _, n := range []int{0, 1, 2, 3, 8} {
		parts := Split(in, []int{0, 1}, n)
		if want := max(n, 1); len(parts) != want {
			t.Fatalf("n=%d: %d parts, want %d", n, len(parts), want)
		}
		total := 0
		where := map[int64]int{} // key → part
		for p, part := range parts {
			last := map[int64]int64{}
			for _, c := range part {
				k := c.Row[0].I
				if q, ok := where[k]; ok && q != p {
					t.Fatalf("n=%d: key %d in parts %d and %d", n, k, q, p)
				}
				where[k] = p
				if c.Row[2].I < last[k] {
					t.Fatalf("n=%d: key %d out of order in part %d", n, k, p)
				}
				last[k] = c.Row[2].I
			}
			total += len(part)
			if n > 1 && (len(part) < 1000/n/2 || len(part) > 2*1000/n) {
				t.Errorf("n=%d: part %d holds %d of 1000 changes", n, p, len(part))
			}
		}
		if total != len(in) {
			t.Fatalf("n=%d: parts hold %d changes, want %d", n, total, len(in))
		}
	}
	if parts := Split(in, nil, 4); len(parts) != 1 || len(parts[0]) != len(in) {
		t.Fatalf("no key: %d parts", len(parts))
	}
}
