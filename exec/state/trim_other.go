//go:build !linux

package state

// fileRSS reports that the file-backed RSS is unknown here, so the store
// starts no trimmer (see trim.go).
func fileRSS() (int64, bool) { return 0, false }

// dropMappedTables does nothing outside Linux.
func dropMappedTables(string, map[uint64]bool) error { return nil }
