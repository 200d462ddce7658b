// Package benchio is what the bench tools share: reading a file of
// queries, and the percentiles of measured times.
package benchio

import (
	"bufio"
	"math"
	"os"
	"strings"
	"time"
)

// ReadLines returns the lines of the file at path that are not blank,
// without a trailing "\r" (lines up to 1 MiB).
func ReadLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// Percentile is the nearest-rank percentile of sorted (0 < p <= 100): the
// smallest value with at least p% of the values at or below it; 0 for no
// values.
func Percentile[T ~float64 | ~int64](sorted []T, p float64) T {
	if len(sorted) == 0 {
		return 0
	}
	k := max(int(math.Ceil(p/100*float64(len(sorted)))), 1)
	return sorted[min(k, len(sorted))-1]
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d) / 1e6 }
