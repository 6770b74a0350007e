package exec

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// TestConsolidateKeepsLastChangePerKey checks consolidate (hashed keys,
// fresh and with scratch kept from batch to batch) against its string-map
// fallback and against the rule itself: for every
// key the batch's last change, in the batch's order. Keys mix BIGINTs,
// VARCHARs and DOUBLE 0 and -0 (one key: their key forms are equal).
func TestConsolidateKeepsLastChangePerKey(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	floats := []float64{0, negZero(), 1.5}
	var shared consolidator // kept across rounds, as a Materialize keeps it
	for round := 0; round < 300; round++ {
		var changes []connectors.Change
		for i := 0; i < rng.Intn(200); i++ {
			row := types.Row{
				types.IntValue(int64(rng.Intn(5))),
				types.StringValue(string(rune('a' + rng.Intn(3)))),
				types.FloatValue(floats[rng.Intn(len(floats))]),
				types.IntValue(int64(i)),
			}
			op := connectors.Upsert
			if rng.Intn(3) == 0 {
				op = connectors.Delete
			}
			changes = append(changes, connectors.Change{Op: op, Row: row})
		}
		key := []int{0, 1, 2}
		got := consolidate(append([]connectors.Change(nil), changes...), key)
		if again := shared.run(append([]connectors.Change(nil), changes...), key); !reflect.DeepEqual(got, again) {
			t.Fatalf("round %d: fresh %v, reused scratch %v", round, got, again)
		}
		if slow := consolidateByString(append([]connectors.Change(nil), changes...), key); !reflect.DeepEqual(got, slow) {
			t.Fatalf("round %d: hashed %v, by string %v", round, got, slow)
		}
		var want []connectors.Change
		for i, c := range changes {
			later := false
			for _, d := range changes[i+1:] {
				if sameKey(c.Row, d.Row) {
					later = true
					break
				}
			}
			if !later {
				want = append(want, c)
			}
		}
		if !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("round %d: got %v, want %v", round, got, want)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

// sameKey is the rule consolidate applies: equal BIGINT and VARCHAR, and
// DOUBLEs equal as numbers (0 = -0).
func sameKey(a, b types.Row) bool {
	return a[0].I == b[0].I && a[1].S == b[1].S && a[2].F == b[2].F
}
