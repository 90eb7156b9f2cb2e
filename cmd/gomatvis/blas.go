package main

import (
	"fmt"
	"io"

	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// cpuBLAS describes the CPU Gram product when backend is the CPU one:
// its warnings (a generic OpenBLAS kernel on an AVX2/AVX-512 CPU, a
// library that disagrees with the pure-Go herk) go to stderr at once, and
// the returned line, naming the library and its kernel
// (openblas_get_corename and openblas_get_config), is for the run's
// summary; "" for other backends.
func cpuBLAS(backend string, stderr io.Writer) string {
	if backend != "cpu" {
		return ""
	}
	ch := cblas.Choose()
	for _, w := range ch.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return "CPU Gram product: " + blasLine(ch)
}

// blasLine names the herk in use and the system library's kernel.
func blasLine(ch cblas.Choice) string {
	_, pureGo := ch.Herk.(cblas.Gonum)
	switch {
	case ch.Kernel.Library == "":
		return "gonum (pure Go; no system CBLAS loaded)"
	case pureGo:
		return "gonum (pure Go), in place of " + ch.Kernel.String()
	}
	return ch.Kernel.String()
}
