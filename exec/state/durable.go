package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
// reached a synced table and is skipped.
func (s *Store) sync() error {
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".mem") {
			continue
		}
		if err := syncFile(filepath.Join(s.dir, e.Name())); err != nil {
			return err
		}
	}
	return syncDir(s.dir)
}

// syncFile fsyncs the file at path; a file that is gone needs nothing.
func syncFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
