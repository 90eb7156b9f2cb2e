package atomicfile

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE (linux/fs.h): start the
// writeback of the range's dirty pages, without waiting for it.
const syncFileRangeWrite = 2

// startWriteback starts writing f's dirty pages to its disk and returns
// at once (sync_file_range(2) over the whole file).
func startWriteback(f *os.File) error {
	_, _, e := syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, f.Fd(), 0, 0, syncFileRangeWrite, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
