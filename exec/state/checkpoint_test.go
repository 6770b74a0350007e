package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/streamsql/streamsql/types"
)

func mustOpen(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, s *Store, k string) string {
	t.Helper()
	v, ok, err := s.Get([]byte(k))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<absent>"
	}
	return string(v)
}

// TestCheckpointLargerThanATransaction writes a checkpoint far over
// Badger's single-transaction limit.
func TestCheckpointLargerThanATransaction(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	val := make([]byte, 200)
	err := s.Checkpoint(1, func(w *Writer) error {
		for i := 0; i < 300_000; i++ {
			if err := w.Set([]byte(fmt.Sprintf("k/%07d", i)), val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("checkpoint of ~60 MB: %v", err)
	}
	if got := len(get(t, s, "k/0299999")); got != 200 {
		t.Fatalf("last key: %d bytes", got)
	}
	n := 0
	if err := s.Scan(prefixPending, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d staged keys left after apply", n)
	}
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after the apply", left)
	}
}

// stage writes checkpoint id's changes to its staging file without
// committing, as a process killed between staging and commit leaves them.
func stage(t *testing.T, s *Store, id uint64, fn func(w *Writer) error) {
	t.Helper()
	w := &Writer{staged: &stagedFile{path: stagedPath(s.dir, id)}}
	if err := w.staged.create(); err != nil {
		t.Fatal(err)
	}
	if err := fn(w); err != nil {
		t.Fatal(err)
	}
	if err := w.flushChunk(); err != nil {
		t.Fatal(err)
	}
	if err := w.staged.finish(); err != nil {
		t.Fatal(err)
	}
}

// stagedFiles lists the staging files left in the store's directory.
func stagedFiles(t *testing.T, s *Store) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(s.dir, stagedDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// commitMarker records checkpoint id as committed without applying its
// staged changes, as a process killed right after the commit leaves it.
func commitMarker(t *testing.T, s *Store, id uint64) {
	t.Helper()
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, id))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCheckpointCrashBeforeCommitKeepsThePreviousOne(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if err := s.Checkpoint(1, func(w *Writer) error { return w.Set([]byte("a"), []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	stage(t, s, 2, func(w *Writer) error {
		if err := w.Set([]byte("a"), []byte("2")); err != nil {
			return err
		}
		return w.Set([]byte("b"), []byte("2"))
	})
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if a, b := get(t, s, "a"), get(t, s, "b"); a != "1" || b != "<absent>" {
		t.Fatalf("after a crash before commit: a=%s b=%s, want a=1 b=<absent>", a, b)
	}
}

func TestCheckpointCrashAfterCommitIsFinishedOnOpen(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if err := s.Checkpoint(1, func(w *Writer) error { return w.Set([]byte("gone"), []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	stage(t, s, 2, func(w *Writer) error {
		if err := w.Set([]byte("a"), []byte("2")); err != nil {
			return err
		}
		return w.Delete([]byte("gone"))
	})
	commitMarker(t, s, 2)
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if a, g := get(t, s, "a"), get(t, s, "gone"); a != "2" || g != "<absent>" {
		t.Fatalf("after a crash after commit: a=%s gone=%s, want a=2 gone=<absent>", a, g)
	}
}

// TestStagedCheckpointPacksChangesIntoChunks stages a checkpoint of many
// changes (several chunks), crashes after the commit and checks that
// opening applies every change in order, and that the staging took one
// Badger entry per chunk rather than one per change.
func TestStagedCheckpointPacksChangesIntoChunks(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	const n = 20_000
	val := bytes.Repeat([]byte("v"), 40)
	stage(t, s, 1, func(w *Writer) error {
		for i := 0; i < n; i++ {
			if err := w.Set([]byte(fmt.Sprintf("k%05d", i)), val); err != nil {
				return err
			}
		}
		// Later changes of a key win: k00000 is deleted, k00001 rewritten.
		if err := w.Delete([]byte("k00000")); err != nil {
			return err
		}
		return w.Set([]byte("k00001"), []byte("last"))
	})
	chunks, err := readStaged(stagedPath(dir, 1))
	if err != nil {
		t.Fatal(err)
	}
	if staged, want := len(chunks), n*50/stageChunkBytes; staged < 2 || staged > want+1 {
		t.Fatalf("%d changes staged as %d chunks, want about %d", n, staged, want)
	}
	commitMarker(t, s, 1)
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if g, l, m := get(t, s, "k00000"), get(t, s, "k00001"), get(t, s, "k19999"); g != "<absent>" || l != "last" || m != string(val) {
		t.Fatalf("after applying on open: k00000=%s k00001=%s k19999=%s", g, l, m)
	}
	if err := s.WaitApplied(); err != nil { // open applies in the background
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after apply", left)
	}
}

// TestStagedChangesOfEarlierStoresStillApply: a store written before
// chunks staged each change under its own key; a crash after the commit
// of such a checkpoint is still finished on open.
func TestStagedChangesOfEarlierStoresStillApply(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if err := s.Checkpoint(1, func(w *Writer) error { return w.Set([]byte("gone"), []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	p := pendingPrefix(2)
	err := s.db.Update(func(txn *badger.Txn) error {
		if err := txn.Set(append(append(slices.Clone(p), '/'), "a"...), []byte("S2")); err != nil {
			return err
		}
		if err := txn.Set(append(append(slices.Clone(p), '/'), "gone"...), []byte("D")); err != nil {
			return err
		}
		return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, 2))
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if a, g := get(t, s, "a"), get(t, s, "gone"); a != "2" || g != "<absent>" {
		t.Fatalf("a=%s gone=%s, want a=2 gone=<absent>", a, g)
	}
}

func TestValueVersionIsChecked(t *testing.T) {
	v := EncodeValue(types.Row{types.IntValue(7), types.StringValue("x")})
	if _, err := DecodeValue(v); err != nil {
		t.Fatal(err)
	}
	v[0] = Version + 1
	if _, err := DecodeValue(v); err == nil {
		t.Fatal("a value of another layout version decoded without error")
	}
}

// TestVersion1ValueDecodes decodes a value as the layout before DECIMAL
// and DATE wrote it (version 1, in bytes): checkpoints taken by an older
// build must still restore.
func TestVersion1ValueDecodes(t *testing.T) {
	old := []byte{
		1,     // version 1
		1,     // one row
		6,     // of six values
		2, 14, // Int 7 (zigzag varint)
		4, 1, 'x', // String "x"
		3, 0, 0, 0, 0, 0, 0, 4, 0x40, // Float 2.5, little-endian bits
		5, 0x80, 0x80, 0x89, 0x82, 0xe2, 0xf5, 0x86, 0x06, // Timestamp 2024-01-01 00:00:00
		1, 2, // Bool true
		0, // NULL
	}
	rows, err := DecodeValue(old)
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[0].String(); len(rows) != 1 || got != "7 x 2.5 2024-01-01 00:00:00 t NULL" {
		t.Fatalf("version 1 value decodes to %q", got)
	}
	// A version 1 value cannot hold the kinds version 2 added.
	if _, err := DecodeValue([]byte{1, 1, 1, byte(types.Date), 2}); err == nil {
		t.Fatal("a version 1 value holding a DATE decoded")
	}
}

func TestDecimalAndDateRoundTrip(t *testing.T) {
	big, _ := types.ParseDecimal("-123456789012345678901234567890.12")
	small := types.DecimalValue(30, 2)
	row := types.Row{small, big, types.DateValue(19723), types.DecimalValue(0, 0)}
	rows, err := DecodeValue(EncodeValue(row))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range rows[0] {
		if v != row[i] {
			t.Errorf("value %d: %#v decodes to %#v", i, row[i], v)
		}
	}
	if rows[0].String() != "0.30 -123456789012345678901234567890.12 2024-01-01 0" {
		t.Errorf("decoded row prints %q", rows[0].String())
	}
	// Keys: equal numbers of different scales make one key.
	if string(AppendKey(nil, types.DecimalValue(10, 1))) != string(AppendKey(nil, types.DecimalValue(100, 2))) {
		t.Error("1.0 and 1.00 make different keys")
	}
	if string(AppendKey(nil, types.IntValue(5))) != string(AppendRow(nil, types.Row{types.IntValue(5)})) {
		t.Error("AppendKey changed the key layout of a BIGINT")
	}
}

func FuzzDecodeValue(f *testing.F) {
	f.Add(EncodeValue(types.Row{types.IntValue(1), types.FloatValue(2), types.StringValue("s"), types.TimestampValue(3), {}}))
	bigDec, _ := types.ParseDecimal("98765432109876543210.5")
	f.Add(EncodeValue(types.Row{types.DecimalValue(-1050, 2), bigDec, types.DateValue(-1)}))
	f.Add([]byte{1, 1, 2, 2, 14, 0}) // a version 1 value
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := DecodeValue(b)
		if err != nil {
			return
		}
		again, err := DecodeValue(EncodeValue(rows...))
		if err != nil || len(again) != len(rows) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestStagedCheckpointAppliesInTheBackground holds a staged checkpoint's
// apply back: Checkpoint still returns (processing goes on), and what
// comes after it — a read, a spill write to a key the checkpoint deletes,
// the next checkpoint — sees the applied checkpoint, never a half-applied
// one, and is not undone by it.
func TestStagedCheckpointAppliesInTheBackground(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	if err := s.Checkpoint(1, func(w *Writer) error { return w.Set([]byte("spill/a"), []byte("old")) }); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	s.bg.gate = gate
	val := bytes.Repeat([]byte("v"), 100)
	err := s.Checkpoint(2, func(w *Writer) error {
		for i := 0; i < 100_000; i++ { // over one transaction: staged
			if err := w.Set([]byte(fmt.Sprintf("k%06d", i)), val); err != nil {
				return err
			}
		}
		return w.Delete([]byte("spill/a"))
	})
	if err != nil {
		t.Fatal(err)
	}
	// Checkpoint returned with its apply still held at the gate.
	s.bg.gate = nil
	spilled := make(chan error, 1)
	go func() {
		spilled <- s.Batch(func(w *Writer) error { return w.Set([]byte("spill/a"), []byte("new")) })
	}()
	close(gate)
	if err := <-spilled; err != nil {
		t.Fatal(err)
	}
	if a, k := get(t, s, "spill/a"), get(t, s, "k099999"); a != "new" || k != string(val) {
		t.Fatalf("after the background apply: spill/a=%s k099999=%q, want spill/a=new and the checkpoint's value", a, k)
	}
	if err := s.Checkpoint(3, func(w *Writer) error { return w.Set([]byte("k000000"), []byte("3")) }); err != nil {
		t.Fatal(err)
	}
	if g := get(t, s, "k000000"); g != "3" {
		t.Fatalf("k000000=%s after checkpoint 3, want 3", g)
	}
}

// TestRecoveryRemovesStagingFiles crashes with a committed checkpoint
// staged but not applied and a later one staged but not committed, and
// checks that opening applies the first, discards the second and leaves
// no staging file, and that nothing was staged in Badger's files.
func TestRecoveryRemovesStagingFiles(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	stage(t, s, 2, setMany("a"))
	commitMarker(t, s, 2)
	stage(t, s, 3, setMany("b"))
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if got := get(t, s, "k0007"); got != strings.Repeat("a", 200) {
		t.Fatalf("after recovery k0007 = %.10q…, want the committed checkpoint's value", got)
	}
	if err := s.WaitApplied(); err != nil { // open applies in the background
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after recovery", left)
	}
	if n := stagedVersions(t, s); n != 0 {
		t.Fatalf("%d versions of staged keys in Badger", n)
	}
}

// TestRecoveryDropsStagedKeys: a store written before staging files
// staged chunks under pending/<id>#<seq> in Badger. Opening it after a
// crash applies the committed checkpoint's chunks, discards an
// uncommitted one's and leaves no version of any staged key in Badger's
// files: not a live one, and not a tombstone or an older version waiting
// for compaction either (those kept the staged chunks on disk).
func TestRecoveryDropsStagedKeys(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	stageInBadger(t, s, 2, setMany("a"))
	commitMarker(t, s, 2)
	stageInBadger(t, s, 3, setMany("b"))
	_ = s.Close()
	s = mustOpen(t, dir)
	if got := get(t, s, "k0007"); got != strings.Repeat("a", 200) {
		t.Fatalf("after recovery k0007 = %.10q…, want the committed checkpoint's value", got)
	}
	if n := stagedVersions(t, s); n != 0 {
		t.Fatalf("after recovery %d versions of staged keys are left in the store", n)
	}
	// Reopening (a second crash restart) finds nothing to apply or drop.
	_ = s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if n := stagedVersions(t, s); n != 0 {
		t.Fatalf("after a second open %d versions of staged keys are left", n)
	}
}

// setMany sets k0000..k1999 to 200 copies of v.
func setMany(v string) func(w *Writer) error {
	return func(w *Writer) error {
		for i := range 2000 {
			if err := w.Set(fmt.Appendf(nil, "k%04d", i), []byte(strings.Repeat(v, 200))); err != nil {
				return err
			}
		}
		return nil
	}
}

// stageInBadger stages checkpoint id as stores before staging files did:
// chunks of about stageChunkBytes, each a Badger entry
// pending/<id>#<seq> whose value is opChunk and the chunk.
func stageInBadger(t *testing.T, s *Store, id uint64, fn func(w *Writer) error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chunks")
	w := &Writer{staged: &stagedFile{path: path}}
	if err := w.staged.create(); err != nil {
		t.Fatal(err)
	}
	if err := fn(w); err != nil {
		t.Fatal(err)
	}
	if err := w.flushChunk(); err != nil {
		t.Fatal(err)
	}
	if err := w.staged.finish(); err != nil {
		t.Fatal(err)
	}
	err := s.Batch(func(bw *Writer) error {
		for seq, c := range w.chunks {
			k := binary.BigEndian.AppendUint64(append(pendingPrefix(id), '#'), uint64(seq))
			if err := bw.Set(k, append([]byte{opChunk}, c.changes...)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stagedVersions counts every version of every staged key Badger still
// holds, deleted ones included.
func stagedVersions(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix, opts.AllVersions, opts.PrefetchValues = prefixPending, true, false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDropLeavesNoVersions checks that Drop removes live keys, deleted
// ones and older versions under its prefix from Badger's files, and
// nothing outside it.
func TestDropLeavesNoVersions(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	err := s.Batch(func(w *Writer) error {
		for i := range 1000 {
			if err := w.Set(fmt.Appendf(nil, "pending/x%04d", i), []byte("v1")); err != nil {
				return err
			}
		}
		return w.Set([]byte("keep"), []byte("k"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePrefix([]byte("pending/x00")); err != nil { // tombstones over 100 keys
		t.Fatal(err)
	}
	if err := s.Drop(prefixPending); err != nil {
		t.Fatal(err)
	}
	if n := stagedVersions(t, s); n != 0 {
		t.Fatalf("after Drop %d versions are left under the prefix", n)
	}
	if got := get(t, s, "keep"); got != "k" {
		t.Fatalf("Drop removed a key outside its prefix: keep = %s", got)
	}
}

// TestReadOnlyOpenRefusesAnUnappliedStagingFile: a crash after the commit
// marker leaves the committed checkpoint in its staging file; a read-only
// open would miss those changes, so it refuses with ErrNotClean until
// Repair applies them.
func TestReadOnlyOpenRefusesAnUnappliedStagingFile(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	stage(t, s, 2, setMany("a"))
	commitMarker(t, s, 2)
	_ = s.Close()
	if ro, err := OpenReadOnly(dir); !errors.Is(err, ErrNotClean) {
		if err == nil {
			_ = ro.Close()
		}
		t.Fatalf("read-only open with a committed staging file: %v, want ErrNotClean", err)
	}
	if err := Repair(dir); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("read-only open after Repair: %v", err)
	}
	defer ro.Close()
	if got := get(t, ro, "k1999"); got != strings.Repeat("a", 200) {
		t.Fatalf("after Repair k1999 = %.10q…, want the committed checkpoint's value", got)
	}
}

// TestIntervalPartsRoundTrip: an interval with months and days keeps its
// parts through a value and a key; a version 2 value of an interval of
// microseconds (its bytes unchanged since version 1) still decodes, and
// a version 2 value cannot hold the parts version 3 added.
func TestIntervalPartsRoundTrip(t *testing.T) {
	iv := types.IntervalOf(14, -3, 7_200_000_000)
	rows, err := DecodeValue(EncodeValue(types.Row{iv, types.IntervalValue(5)}))
	if err != nil || len(rows) != 1 || rows[0][0] != iv || rows[0][1] != types.IntervalValue(5) {
		t.Fatalf("round trip = %v, %v", rows, err)
	}
	if AppendKey(nil, iv)[1] != types.CodecIntervalParts {
		t.Error("an interval with months is keyed under its micro-only kind")
	}
	key, err := DecodeKeys(append(AppendKey(nil, iv), AppendKey(nil, types.IntervalOf(1, 0, 0))...))
	if err != nil || len(key) != 2 || key[0] != iv || key[1].String() != "1 mon" {
		t.Fatalf("keys = %v, %v", key, err)
	}
	old := []byte{2, 1, 1, byte(types.Interval), 10} // version 2: Interval of 5 µs
	if rows, err := DecodeValue(old); err != nil || rows[0][0] != types.IntervalValue(5) {
		t.Fatalf("version 2 interval = %v, %v", rows, err)
	}
	v := EncodeValue(types.Row{iv})
	v[0] = 2
	if _, err := DecodeValue(v); err == nil {
		t.Fatal("a version 2 value holding interval parts decoded")
	}
}

// TestStagedApplyKeepsTheLastChangeOfAKey writes a staged checkpoint whose
// changes come in descending key order, change some keys more than once
// (set then delete, delete then set, set twice) and carry values large
// enough that Badger's size limit splits the apply's transactions: the
// sorted apply must leave each key as its last change said.
func TestStagedApplyKeepsTheLastChangeOfAKey(t *testing.T) {
	s, err := Open(t.TempDir(), WithMemoryLimit(80<<20)) // an 8 MiB memtable: 1.2 MB transactions
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Checkpoint(1, func(w *Writer) error {
		return w.Set([]byte("gone"), []byte("old"))
	})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte{'b'}, 10<<10)
	err = s.Checkpoint(2, func(w *Writer) error {
		for i := 60_000; i > 0; i-- {
			val := []byte(fmt.Sprint(i))
			if i%10 == 0 {
				val = big
			}
			if err := w.Set([]byte(fmt.Sprintf("k/%06d", i)), val); err != nil {
				return err
			}
		}
		for _, err := range []error{
			w.Delete([]byte("k/000001")), // set, then deleted
			w.Set([]byte("k/000002"), []byte("second")),
			w.Delete([]byte("gone")),
			w.Delete([]byte("new")),
			w.Set([]byte("new"), []byte("after delete")),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"k/000001": "<absent>", "k/000002": "second", "k/000003": "3", "k/060000": string(big),
		"k/059999": "59999", "gone": "<absent>", "new": "after delete",
	}
	for k, v := range want {
		if got := get(t, s, k); got != v {
			t.Errorf("%s = %.20q, want %.20q", k, got, v)
		}
	}
	n := 0
	if err := s.Scan([]byte("k/"), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 59_999 {
		t.Fatalf("%d keys under k/, want 59,999", n)
	}
}

// TestForReadingLeavesTheCheckpointStaged crashes with a committed
// checkpoint staged but not applied and opens the store ForReading, as
// `streamsql query` does: reads see the checkpoint, nothing applies it (its
// staging file stays), and the next open for writing applies it.
func TestForReadingLeavesTheCheckpointStaged(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if err := s.Update(func(w *Writer) error { return setMany("o")(w) }); err != nil {
		t.Fatal(err)
	}
	stage(t, s, 2, setMany("a"))
	commitMarker(t, s, 2)
	_ = s.Close()
	s, err := Open(dir, ForReading())
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "k0007"); got != strings.Repeat("a", 200) {
		t.Fatalf("k0007 = %.10q… read ForReading, want the committed checkpoint's value", got)
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 1 {
		t.Fatalf("staging files %v after a ForReading open, want the committed checkpoint's", left)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "k1999"); got != strings.Repeat("a", 200) {
		t.Fatalf("k1999 = %.10q… after the apply, want the committed checkpoint's value", got)
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after the apply", left)
	}
}

// TestClearOnOpenDeletesThePrefix: opening with WithClearOnOpen deletes
// every key with the prefix (the spill area) and nothing else.
func TestClearOnOpenDeletesThePrefix(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	err := s.Batch(func(w *Writer) error {
		for _, k := range []string{"spill/a", "spill/b/1", "spilt", "k"} {
			if err := w.Set([]byte(k), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	s, err = Open(dir, WithClearOnOpen([]byte("spill/")))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for _, k := range []string{"spill/a", "spill/b/1", "spilt", "k"} {
		got = append(got, k+"="+get(t, s, k))
	}
	if want := "spill/a=<absent> spill/b/1=<absent> spilt=v k=v"; strings.Join(got, " ") != want {
		t.Fatalf("after the open: %s, want %s", strings.Join(got, " "), want)
	}
}

// TestAppliedChangesOrderWithOtherWrites checks the versions the
// background apply writes at (it writes below Badger's transactions, at a
// version it claims): a write committed after an apply wins over the
// applied value, an apply wins over a write committed before it, and both
// stay so after the store is reopened and its levels compacted into one.
func TestAppliedChangesOrderWithOtherWrites(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	bulk := func(id uint64, tag string, extra func(w *Writer) error) {
		t.Helper()
		err := s.Checkpoint(id, func(w *Writer) error {
			for i := 60_000; i >= 100; i-- { // descending: the apply sorts them
				if err := w.Set([]byte(fmt.Sprintf("k/%06d", i)), []byte(tag)); err != nil {
					return err
				}
			}
			return extra(w)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WaitApplied(); err != nil {
			t.Fatal(err)
		}
	}
	bulk(1, "1", func(*Writer) error { return nil })
	err := s.Update(func(w *Writer) error {
		return errors.Join(w.Set([]byte("k/000100"), []byte("update")), w.Delete([]byte("k/000101")),
			w.Set([]byte("k/000102"), []byte("update")))
	})
	if err != nil {
		t.Fatal(err)
	}
	bulk(2, "2", func(w *Writer) error {
		return errors.Join(w.Delete([]byte("k/000102")), w.Delete([]byte("k/000103")), w.Set([]byte("k/000001"), []byte("2")))
	})
	if err := s.Update(func(w *Writer) error { return w.Set([]byte("k/000200"), []byte("after")) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"k/000001": "2", "k/000100": "2", "k/000101": "2", "k/000102": "<absent>", "k/000103": "<absent>",
		"k/000200": "after", "k/000201": "2", "k/060000": "2",
	}
	check := func(when string) {
		t.Helper()
		for k, v := range want {
			if got := get(t, s, k); got != v {
				t.Errorf("%s: %s = %q, want %q", when, k, got, v)
			}
		}
	}
	check("after the applies")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	check("reopened")
	if err := s.db.Flatten(1); err != nil {
		t.Fatal(err)
	}
	check("compacted")
}

// TestSortedChangesKeepsTheLastOfAKey checks the parse and sort of staged
// chunks: changes staged in ascending key order come back as staged,
// others sorted by key with the last change of each key.
func TestSortedChangesKeepsTheLastOfAKey(t *testing.T) {
	stageAll := func(ops ...string) []stagedChunk {
		w := &Writer{}
		for _, op := range ops {
			k, v, del := op[1:], "v"+op[1:], op[0] == '-'
			w.chunk = nil
			if err := w.stage([]byte(k), []byte(v), del); err != nil {
				t.Fatal(err)
			}
			w.chunks = append(w.chunks, stagedChunk{changes: w.chunk})
		}
		return w.chunks
	}
	for _, tc := range []struct{ ops, want []string }{
		{[]string{"+a", "+b", "-c", "+d"}, []string{"+a", "+b", "-c", "+d"}},
		{[]string{"+d", "+a", "-a", "+c", "+a", "-d"}, []string{"+a", "+c", "-d"}},
		{[]string{"+a", "+a"}, []string{"+a"}},
	} {
		got, err := sortedChanges(stageAll(tc.ops...), 0)
		if err != nil {
			t.Fatal(err)
		}
		var gotOps []string
		for _, c := range got {
			op := "+"
			if c.del {
				op = "-"
			} else if string(c.val) != "v"+string(c.key) {
				t.Fatalf("%v: value %q for %q", tc.ops, c.val, c.key)
			}
			gotOps = append(gotOps, op+string(c.key))
		}
		if !slices.Equal(gotOps, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.ops, gotOps, tc.want)
		}
	}
}
