// The reference's floor for big-integer work: Go math/big products and decimal conversion of the same
// values bench/bigint_floor.ts builds, timed in-process. Run by bench/bigint_floor.ts (`go run`), which
// prints both runtimes side by side; prints one line per measurement: "name bits microseconds".
package main

import (
	"fmt"
	"math/big"
	"time"
)

// mk builds the value the compare programs build: a leading 1 followed by 60-bit chunks of an LCG.
func mk(bits int, seed uint64) *big.Int {
	x := big.NewInt(1)
	s := seed
	chunk := new(big.Int)
	for i := 0; i < bits/60; i++ {
		s = s*6364136223846793005 + 1442695040888963407
		x.Lsh(x, 60)
		x.Or(x, chunk.SetUint64(s>>4))
	}
	return x
}

// median of n timed runs of f, in microseconds.
func timeIt(n int, f func()) float64 {
	for i := 0; i < 3; i++ {
		f()
	}
	best := make([]float64, 0, 7)
	for r := 0; r < 7; r++ {
		t := time.Now()
		for i := 0; i < n; i++ {
			f()
		}
		best = append(best, float64(time.Since(t).Nanoseconds())/float64(n)/1000)
	}
	for i := range best {
		for j := i + 1; j < len(best); j++ {
			if best[j] < best[i] {
				best[i], best[j] = best[j], best[i]
			}
		}
	}
	return best[len(best)/2]
}

func main() {
	for _, bits := range []int{1000, 3000, 10000, 30000, 100000} {
		a, b := mk(bits, 1), mk(bits, 2)
		n := 2000000 / bits
		fmt.Printf("mul %d %.3f\n", bits, timeIt(n, func() { new(big.Int).Mul(a, b) }))
		fmt.Printf("decimal %d %.3f\n", bits, timeIt(n/10+1, func() { _ = a.String() }))
	}
}
