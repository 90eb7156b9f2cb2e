package membudget

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrTooLarge is wrapped by the errors of work that would hold more
// memory than its budget.
var ErrTooLarge = errors.New("does not fit in memory")

// Term is one thing that work will hold, sized before it is allocated.
type Term struct {
	// Name says what it is ("stokes"); Size how it was sized
	// ("4 × 1 channels × 20000000 components × 8 B").
	Name, Size string
	Bytes      int64
}

// TooLargeError says that work needs more memory than its budget.
type TooLargeError struct {
	// What is the work ("the sky of sky.skyh5").
	What  string
	Terms []Term
	Need  int64
	Limit Limit
	// Advice says what to change.
	Advice string
}

func (e *TooLargeError) Error() string {
	parts := make([]string, 0, len(e.Terms))
	for _, t := range e.Terms {
		if t.Bytes > 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", t.Name, FormatBytes(t.Bytes), t.Size))
		}
	}
	msg := fmt.Sprintf("%s needs %s: %s; the limit is %s (%s): %v",
		e.What, FormatBytes(e.Need), strings.Join(parts, ", "), FormatBytes(e.Limit.Bytes), e.Limit.From, ErrTooLarge)
	if e.Advice != "" {
		msg += "; " + e.Advice
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Check returns a *TooLargeError when the terms add up to more than the
// budget of maxMemory (Budget), and nil when they fit or no limit is
// known. Call it before allocating what the terms describe.
func (m Machine) Check(maxMemory int64, what, advice string, terms ...Term) error {
	b, ok := m.Budget(maxMemory)
	if !ok {
		return nil
	}
	need := int64(0)
	for _, t := range terms {
		need = Add(need, t.Bytes)
	}
	if need <= b.Bytes {
		return nil
	}
	if b.From == FromMaxMemory {
		advice += ", or raise max_memory (--max-memory) where the machine has the memory"
	} else if b.From == FromAddressSpace {
		advice += ", or raise the address-space limit (ulimit -v)"
	}
	return &TooLargeError{What: what, Terms: terms, Need: need, Limit: b, Advice: advice}
}

// Mul multiplies non-negative counts, saturating at MaxInt64 so that an
// absurd size compares as too large instead of wrapping around.
func Mul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x <= 0 {
			return 0
		}
		if p > math.MaxInt64/x {
			return math.MaxInt64
		}
		p *= x
	}
	return p
}

// Add sums non-negative byte counts, saturating at MaxInt64.
func Add(xs ...int64) int64 {
	s := int64(0)
	for _, x := range xs {
		if s > math.MaxInt64-x {
			return math.MaxInt64
		}
		s += x
	}
	return s
}

// FormatBytes writes n bytes with a decimal unit (3 significant digits).
func FormatBytes(n int64) string {
	switch v := float64(n); {
	case v >= 1e12:
		return fmt.Sprintf("%.3g TB", v/1e12)
	case v >= 1e9:
		return fmt.Sprintf("%.3g GB", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3g MB", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3g kB", v/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
