//go:build !linux

package state

import "os"

// willNeed does nothing where posix_fadvise is not available.
func willNeed(*os.File, int64, int64) {}
