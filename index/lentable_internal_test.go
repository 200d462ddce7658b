package index

import (
	"math"
	"testing"
)

func TestLenTableIsTheFormula(t *testing.T) {
	for i, got := range lenTable {
		want := float64(i)
		if i >= 128 {
			want = 128 * math.Pow(2, float64(i-128)/16)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("lenTable[%d] = %v, the formula gives %v", i, got, want)
		}
	}
}
