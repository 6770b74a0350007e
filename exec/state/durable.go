package state

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// sync makes every write committed to Badger so far durable. Badger is
// opened without synced writes (Open): with them every commit waits for
// an msync of the memtable's write-ahead log, which halved the apply of a
// checkpoint (its transactions commit one after another), while the apply
// needs durability only once, before its staging file goes. So a write
// that must outlive a power loss (an acknowledged INSERT, a checkpoint's
// commit marker, the end of an apply) calls sync after its commit.
//
// Badger's own Sync covers only the memtable being written and the value
// log: a memtable that filled meanwhile keeps its write-ahead log (a .mem
// file) unsynced until it reaches a table, and writes of an apply or of a
// concurrent transaction may sit there. sync therefore also fsyncs every
// .mem file in the directory (an fsync writes back the pages written
// through Badger's shared mapping of it, as msync does) and the
// directory itself (a new log's entry). A log file removed meanwhile has
// reached a synced table and is skipped. Each older log is fsynced once
// (memLogs), so a sync costs Badger's Sync and a directory listing.
func (s *Store) sync() error {
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	var logs []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".mem") {
			logs = append(logs, e.Name())
		}
	}
	// By file number: the names are zero-padded to five digits only.
	slices.SortFunc(logs, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	return s.logs.sync(s.dir, logs)
}

// memLogs is what sync knows of Badger's memtable logs: those synced
// since they stopped taking writes. Badger writes only the log of its
// newest memtable (the greatest file number), which its Sync covers; an older log takes no more
// writes, so one fsync after that leaves it clean for good.
type memLogs struct {
	mu    sync.Mutex
	clean map[string]bool // older logs synced since their last write
	seen  map[string]bool // the logs of the last sync, whose directory entries are durable
}

// sync fsyncs the logs (names in dir, by file number) not known clean but
// the newest, and the directory when a log appeared since the last call.
func (m *memLogs) sync(dir string, logs []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	clean, seen := map[string]bool{}, map[string]bool{}
	added := false
	for i, name := range logs {
		seen[name] = true
		added = added || !m.seen[name]
		if i == len(logs)-1 {
			break // the newest: Badger's Sync covered it
		}
		if !m.clean[name] {
			if err := syncFile(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
		clean[name] = true
	}
	if added {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	m.clean, m.seen = clean, seen
	return nil
}

// syncFile fsyncs the file at path; a file that is gone needs nothing.
func syncFile(path string) error {
	if err := fsyncPath(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
