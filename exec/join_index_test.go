package exec

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestJoinIndexChurn inserts and removes keys at random, as a join with
// a nearly unique key does, and checks the index against a map after
// every step: lookups, the key count and a full visit. Keys are short
// (compared packed), long (compared as strings) or differ only by
// trailing zero bytes (told apart by their length).
func TestJoinIndexChurn(t *testing.T) {
	var x joinIndex
	want := map[string]*joinKey{}
	rng := rand.New(rand.NewSource(7))
	for step := range 20000 {
		n := rng.Intn(3000)
		k := strconv.Itoa(n)
		switch n % 3 {
		case 1:
			k = strings.Repeat("long key ", 2) + k
		case 2:
			k += strings.Repeat("\x00", n%4)
		}
		jk := x.get(k, joinHash(k))
		if jk != want[k] {
			t.Fatalf("step %d: get(%q) = %p, want %p", step, k, jk, want[k])
		}
		if jk == nil {
			jk = &joinKey{key: k, hash: joinHash(k)}
			x.put(jk)
			want[k] = jk
		} else {
			x.remove(jk)
			delete(want, k)
		}
		if x.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, x.len(), len(want))
		}
	}
	seen := 0
	x.each(func(jk *joinKey) bool {
		if want[jk.key] != jk {
			t.Errorf("each visited %q, not held", jk.key)
		}
		seen++
		return true
	})
	if seen != len(want) {
		t.Errorf("each visited %d keys, want %d", seen, len(want))
	}
}

// TestJoinHashBytesMatchesString checks that a key hashed from the row's
// bytes (Process) and from its string (timers, restore, checkpoints)
// lands on the same entry.
func TestJoinHashBytesMatchesString(t *testing.T) {
	for _, k := range []string{"", "a", "a\x00", strings.Repeat("key", 20)} {
		if joinHashBytes([]byte(k)) != joinHash(k) {
			t.Errorf("joinHashBytes(%q) differs from joinHash", k)
		}
	}
}
