package gpu

import (
	"fmt"
	"time"

	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/choicecache"
)

// DefaultChoiceWait is how long a run waits, by default, for another
// process measuring the same choice (a Gram strategy, the fused or the
// transform path) into the cache on disk.
const DefaultChoiceWait = 10 * time.Minute

// lockChoice takes the lock of key in the choice cache at path from the
// miss to the write: runs started together on an empty cache would
// otherwise each measure, and where two candidates are about as fast
// take different ones, whose results differ in their last bits (issue
// 41). The others wait for the first's measurement and read it back; ok
// is false past the wait.
func (r *run) lockChoice(path, key string) (unlock func(), ok bool) {
	return choicecache.Lock(path, key, r.choiceWait())
}

func (r *run) choiceWait() time.Duration {
	if r.opt.ChoiceWait > 0 {
		return r.opt.ChoiceWait
	}
	return DefaultChoiceWait
}

// waitedTooLong is the reason given for a fixed choice taken after
// waiting for another process's measurement past the wait.
func (r *run) waitedTooLong(path string) string {
	return fmt.Sprintf("fixed choice, unmeasured: another process has been measuring this shape for over %v (%s)", r.choiceWait(), path)
}

// fixedStrategy is the Gram strategy taken without measuring: cuBLAS's
// herk, which every device runs.
func fixedStrategy(precision int) gram.Strategy {
	if precision == 2 {
		return gram.Zherk
	}
	return gram.Cherk
}
