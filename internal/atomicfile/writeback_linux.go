package atomicfile

import "syscall"

// startWriteback asks the kernel to start writing f's dirty pages to
// disk without waiting for them (sync_file_range SYNC_FILE_RANGE_WRITE).
func startWriteback(fd uintptr) error {
	const syncFileRangeWrite = 2
	return syscall.SyncFileRange(int(fd), 0, 0, syncFileRangeWrite)
}
