package gram

// KernelFiles gives the external tests this package's embedded programs.
var KernelFiles = kernelFiles
