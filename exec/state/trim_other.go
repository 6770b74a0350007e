//go:build !linux

package state

// residentMemory reports that the resident memory is unknown here, so
// the store starts no trimmer (see trim.go).
func residentMemory() (rss, file int64, ok bool) { return 0, 0, false }

// dropMappedTables does nothing outside Linux.
func dropMappedTables(string, map[uint64]bool) error { return nil }
