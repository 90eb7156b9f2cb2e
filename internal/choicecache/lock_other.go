//go:build !unix

package choicecache

import "os"

// tryLock cannot lock without flock: concurrent first runs may then each
// measure, as before Lock.
func tryLock(*os.File) lockResult { return lockUnsupported }
