package state

import (
	"os"

	"golang.org/x/sys/unix"
)

// willNeed starts reading n bytes of f at off into the page cache.
func willNeed(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED)
}
