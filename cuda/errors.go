package cuda

import (
	"errors"
	"fmt"
)

// ErrNoDevice is matched (errors.Is) by the error Open returns when no CUDA
// driver, no usable device or no needed library is found on this machine.
var ErrNoDevice = errors.New("no CUDA device/driver found")

// Error is a failed call into a CUDA library. It carries the library's own
// name and description of the status code.
type Error struct {
	Lib  string // "cuda", "cublas" or "nvrtc"
	Func string // the C function that failed
	Code int    // the status code it returned
	Name string // the library's name for the code, e.g. CUDA_ERROR_OUT_OF_MEMORY
	Msg  string // the library's description, where it has one
}

// Error reads "lib: Func failed: NAME (code): description".
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s failed: %s (%d)", e.Lib, e.Func, e.Name, e.Code)
	if e.Msg != "" && e.Msg != e.Name {
		s += ": " + e.Msg
	}
	return s
}

// CUresult codes that, from cuInit, mean "no usable GPU here" rather than
// a bug in the caller.
const (
	cuErrNotInitialized = 3   // CUDA_ERROR_NOT_INITIALIZED
	cuErrInsufficientDr = 35  // CUDA_ERROR_INSUFFICIENT_DRIVER
	cuErrNoDevice       = 100 // CUDA_ERROR_NO_DEVICE
	cuErrSystemDriver   = 803 // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
	cuErrCompatNotSupp  = 804 // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
)

// noDeviceCode reports whether a driver status at initialisation means that
// this machine has no usable device (as opposed to a programming error).
func noDeviceCode(code int) bool {
	switch code {
	case cuErrNotInitialized, cuErrInsufficientDr, cuErrNoDevice, cuErrSystemDriver, cuErrCompatNotSupp:
		return true
	}
	return false
}

var cublasStatusNames = map[int]string{
	0:  "CUBLAS_STATUS_SUCCESS",
	1:  "CUBLAS_STATUS_NOT_INITIALIZED",
	3:  "CUBLAS_STATUS_ALLOC_FAILED",
	7:  "CUBLAS_STATUS_INVALID_VALUE",
	8:  "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR",
	15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

var nvrtcStatusNames = map[int]string{
	0:  "NVRTC_SUCCESS",
	1:  "NVRTC_ERROR_OUT_OF_MEMORY",
	2:  "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	3:  "NVRTC_ERROR_INVALID_INPUT",
	4:  "NVRTC_ERROR_INVALID_PROGRAM",
	5:  "NVRTC_ERROR_INVALID_OPTION",
	6:  "NVRTC_ERROR_COMPILATION",
	7:  "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	8:  "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	9:  "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
	11: "NVRTC_ERROR_INTERNAL_ERROR",
}
