package nufft

// binBits sets the bins of binOrder: 2^binBits grid cells a side.
const binBits = 3

// binOrder returns the indices 0…n−1 sorted by the grid bin of their
// coordinates c (per active axis, in grid cells of a grid of size[d]
// points; nil for an inactive axis), bins of 8 cells a side in row-major
// order, by a counting sort. Visiting points or targets in this order
// makes consecutive kernels touch the same few kilobytes of the grid
// instead of jumping across all of it; the results do not depend on the
// order except for rounding in the spreading sums.
func binOrder(c [3][]float64, size [3]int, n int) []int32 {
	var nb [3]int
	for d := range 3 {
		nb[d] = 1
		if c[d] != nil {
			nb[d] = size[d]>>binBits + 1
		}
	}
	key := make([]int32, n)
	count := make([]int32, nb[0]*nb[1]*nb[2]+1)
	for j := range n {
		k := 0
		for d := range 3 {
			b := 0
			if c[d] != nil {
				b = min(max(int(c[d][j])>>binBits, 0), nb[d]-1)
			}
			k = k*nb[d] + b
		}
		key[j] = int32(k)
		count[k+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	order := make([]int32, n)
	for j, k := range key {
		order[count[k]] = int32(j)
		count[k]++
	}
	return order
}
