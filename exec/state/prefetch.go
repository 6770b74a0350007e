package state

import (
	"encoding/binary"
	"os"
	"path/filepath"
)

// prefetchTableIndexes asks the kernel to read the index of every table
// file in dir into the page cache (POSIX_FADV_WILLNEED over exactly that
// range), before Badger opens them. Badger reads each table's index (the
// block offsets and the bloom filter, at the end of the file) through its
// memory mapping when it opens the table, and a fault on a mapping the
// kernel has not seen used reads the device's whole read-ahead window
// around the page: on a disk with a large window (8 MiB on virtio disks)
// that is most of every table, 700 MB of a 1 GB state read to open it
// cold. Asked for first, only the indexes are read, all at once, and
// Badger's faults find them cached. A file whose footer does not parse is
// left for Badger to read (and to reject).
func prefetchTableIndexes(dir string) {
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for _, path := range tables {
		prefetchTableIndex(path)
	}
}

// prefetchTableIndex issues the WILLNEED of one table. Badger's table
// ends with the index, its length (4 bytes), the index's checksum and the
// checksum's length (4 bytes), both lengths big-endian.
func prefetchTableIndex(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return
	}
	size := info.Size()
	var b [4]byte
	if size < 8 {
		return
	}
	if _, err := f.ReadAt(b[:], size-4); err != nil {
		return
	}
	end := size - 4 - int64(binary.BigEndian.Uint32(b[:])) // the index length's end
	if end < 4 || end > size-4 {
		return
	}
	if _, err := f.ReadAt(b[:], end-4); err != nil {
		return
	}
	start := end - 4 - int64(binary.BigEndian.Uint32(b[:]))
	if start < 0 || start > end-4 {
		return
	}
	willNeed(f, start, size-start)
}
