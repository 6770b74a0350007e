package exec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// TestDirtyListAllLiveIsAmortised lists many entries that all stay live
// while the operator holds few (a view over its memory budget: the
// evicted rows are still dirty). The liveness checks must stay a small
// multiple of the adds; they used to rescan the whole list on every add,
// n²/2 checks in all.
func TestDirtyListAllLiveIsAmortised(t *testing.T) {
	const adds, held = 100_000, 100
	var d dirtyList[int]
	checks := 0
	for i := 0; i < adds; i++ {
		d.add(i, held, func(int) bool { checks++; return true })
	}
	if len(d.items) != adds {
		t.Fatalf("list holds %d entries, want all %d (every one is live)", len(d.items), adds)
	}
	if checks > 4*adds {
		t.Fatalf("%d liveness checks for %d adds, want at most %d", checks, adds, 4*adds)
	}
}

// TestDirtyListStaysBounded churns entries (listed, then removed or
// checkpointed at random) and checks after every add that the list is at
// most twice the larger of the entries held and the live entries listed,
// plus the constant below which it never compacts, and that it keeps
// every live entry.
func TestDirtyListStaysBounded(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var d dirtyList[int]
		live := map[int]bool{} // the listed entries that still need the checkpoint
		isLive := func(x int) bool { return live[x] }
		peak, next := 0, 0
		for step := 0; step < 200_000; step++ {
			switch r := rng.Intn(10); {
			case r < 6 || len(live) == 0:
				live[next] = true
				held := len(live) / (1 + rng.Intn(4)) // held may be below the live count (evicted rows)
				d.add(next, held, isLive)
				next++
				peak = max(peak, len(live))
				if bound := max(compactMin, 2*held, 2*peak) + 1; len(d.items) > bound {
					t.Fatalf("seed %d step %d: list of %d entries, bound %d (held %d, live %d)", seed, step, len(d.items), bound, held, len(live))
				}
			default:
				for x := range live { // remove one (map order is random enough)
					delete(live, x)
					break
				}
			}
			if rng.Intn(50_000) == 0 { // a checkpoint takes the list
				for _, x := range d.take() {
					delete(live, x)
				}
				if len(live) != 0 {
					t.Fatalf("seed %d step %d: %d live entries were not listed", seed, step, len(live))
				}
				peak = 0
			}
		}
		listed := map[int]bool{}
		for _, x := range d.items {
			listed[x] = true
		}
		for x := range live {
			if !listed[x] {
				t.Fatalf("seed %d: live entry %d dropped from the list", seed, x)
			}
		}
	}
}

// BenchmarkMaterializeSmallBudget times one new row into a view that
// keeps 1,000 rows in memory while dirty rows (changed since the last
// checkpoint, most of them spilled) are already listed: the cost per row
// must not grow with that number.
func BenchmarkMaterializeSmallBudget(b *testing.B) {
	for _, dirty := range []int{10_000, 40_000} {
		b.Run(fmt.Sprintf("dirty=%d", dirty), func(b *testing.B) {
			st, err := state.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			m := NewMaterialize("v/", nil, nil).WithSpill(st, 1000, 1, nil)
			row := func(i int) *Batch {
				return &Batch{Rows: []types.Row{{types.IntValue(int64(i))}}, Diffs: []int8{1}}
			}
			for i := 0; i < dirty; i++ {
				if err := m.Process(0, row(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.Process(0, row(dirty+i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
