package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// stagedDir is the directory, inside the state directory, of the staging
// files of checkpoints too large for one transaction.
const stagedDir = "staged"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// stagedFile is the staging file of one checkpoint: its chunks in the
// order they were written, each framed as a uvarint length, the chunk and
// its CRC-32C. Staging outside Badger writes each change to Badger once
// (when applied) and leaves nothing in its tables to collect: the file is
// removed once the apply is durable. It is created when the checkpoint
// outgrows one transaction.
type stagedFile struct {
	path string
	f    *os.File
}

// stagedPath is the staging file of checkpoint id in the state directory
// dir.
func stagedPath(dir string, id uint64) string {
	return filepath.Join(dir, stagedDir, fmt.Sprintf("%020d", id))
}

// create creates the file, replacing what an uncommitted checkpoint of
// the same id left.
func (sf *stagedFile) create() error {
	if err := os.MkdirAll(filepath.Dir(sf.path), 0o755); err != nil {
		return fmt.Errorf("create staging directory: %w", err)
	}
	f, err := os.OpenFile(sf.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("create staging file: %w", err)
	}
	sf.f = f
	return nil
}

// write appends one chunk with its frame.
func (sf *stagedFile) write(chunk []byte) error {
	hdr := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64), uint64(len(chunk)))
	sum := binary.BigEndian.AppendUint32(nil, crc32.Checksum(chunk, castagnoli))
	for _, b := range [][]byte{hdr, chunk, sum} {
		if _, err := sf.f.Write(b); err != nil {
			return fmt.Errorf("write staging file: %w", err)
		}
	}
	return nil
}

// finish makes the file durable, its directory entry included, so it
// outlives a crash once the commit marker written after it does.
func (sf *stagedFile) finish() error {
	if err := sf.f.Sync(); err != nil {
		return fmt.Errorf("sync staging file: %w", err)
	}
	err := sf.f.Close()
	sf.f = nil
	if err != nil {
		return fmt.Errorf("close staging file: %w", err)
	}
	return syncDir(filepath.Dir(sf.path))
}

// discard removes the file of a checkpoint that did not commit (or was
// never staged).
func (sf *stagedFile) discard() {
	if sf.f != nil {
		_ = sf.f.Close()
		sf.f = nil
	}
	_ = os.Remove(sf.path)
}

// syncDir makes the entries of directory dir durable.
func syncDir(dir string) error { return fsyncPath(dir) }

// fsyncPath opens the file or directory at path and fsyncs it.
func fsyncPath(path string) error {
	f, err := os.Open(path)
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

// readStaged reads the chunks of a staging file, checking each frame.
func readStaged(path string) ([]stagedChunk, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read staging file: %w", err)
	}
	var chunks []stagedChunk
	for len(b) > 0 {
		chunk, rest, err := chunkField(b)
		if err != nil || len(rest) < 4 {
			return nil, fmt.Errorf("staging file %s: truncated chunk %d", path, len(chunks))
		}
		if binary.BigEndian.Uint32(rest) != crc32.Checksum(chunk, castagnoli) {
			return nil, fmt.Errorf("staging file %s: chunk %d fails its checksum", path, len(chunks))
		}
		chunks = append(chunks, stagedChunk{changes: chunk})
		b = rest[4:]
	}
	return chunks, nil
}

// recoverStagedFiles removes every staging file but the committed
// checkpoint's (their checkpoints never committed), and applies that one
// in the background after the progress its interrupted apply recorded, as Checkpoint would have had the run not been
// interrupted: reads merge its changes over Badger meanwhile, so the
// store answers at once, and writes wait for the apply (applier.go),
// which removes the file once its changes are durable.
func (s *Store) recoverStagedFiles(committed uint64) error {
	dir := filepath.Join(s.dir, stagedDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list staged checkpoints: %w", err)
	}
	var chunks []stagedChunk
	path := stagedPath(s.dir, committed)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if id, err := strconv.ParseUint(e.Name(), 10, 64); err == nil && id == committed {
			if chunks, err = readStaged(p); err != nil {
				return fmt.Errorf("checkpoint %d: %w", id, err)
			}
			continue
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("remove staged checkpoint: %w", err)
		}
	}
	if len(ents) > 0 {
		// No removed file comes back to replay over later writes.
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	if chunks == nil {
		return nil
	}
	if s.forReading {
		s.readStagedOnly(chunks)
		return nil
	}
	var after []byte
	if !s.wholeApply {
		if after, err = s.applyProgress(committed); err != nil {
			return err
		}
	}
	s.applyInBackground(committed, path, chunks, 0, after)
	return nil
}
