package inputfile

import "syscall"

// mapFlags has the kernel map the file's pages at once, in one call,
// rather than on a fault per 4 KiB page as they are first read.
const mapFlags = syscall.MAP_POPULATE
