// Package rank holds cairn's pure scoring rules: the salience of a memory
// (how much it should count, apart from how well it matches) and the
// combination of relevance and salience into one score. Everything here is
// deterministic and does no I/O, so rankings are reproducible with a fixed
// clock.
package rank

import (
	"math"
	"time"

	"github.com/cairn-dev/cairn"
)

// Weights tune salience. The zero value is not useful; start from
// DefaultWeights.
type Weights struct {
	// Confidence scales how much a memory's confidence (centred on 0.5)
	// raises or lowers its score.
	Confidence float64
	// Recency is the bonus for a memory touched (used or updated) just
	// now; it halves every RecencyHalfLife.
	Recency         float64
	RecencyHalfLife time.Duration
	// Use is the bonus for a memory used often, saturating at UseSaturation uses.
	Use           float64
	UseSaturation int
	// Share is how much of salience's distance from 1 reaches the score,
	// and Swing bounds the factor it makes to [1−Swing, 1+Swing]; see
	// Combine.
	Share float64
	Swing float64
}

// DefaultWeights are the weights cairn ships with. They were chosen so that
// salience reorders close lexical matches but cannot lift a poor match over
// a clearly better one.
func DefaultWeights() Weights {
	return Weights{
		Confidence:      0.4,
		Recency:         0.1,
		RecencyHalfLife: 30 * 24 * time.Hour,
		Use:             0.1,
		UseSaturation:   20,
		Share:           0.5,
		Swing:           0.1,
	}
}

// Salience is a memory's standing, independent of the query:
//
//	salience = type weight × (1 + Wc·(confidence − 0.5) + Wr·0.5^(age/half-life) + Wu·min(1, ln(1+uses)/ln(1+saturation)))
//
// where age is the time since the memory was last used or updated,
// whichever is later, measured at now (never negative).
func Salience(m *cairn.Memory, now time.Time, typeWeight float64, w Weights) float64 {
	s := 1 + w.Confidence*(m.Confidence-0.5)
	touched := m.UpdatedAt
	if m.LastUsedAt.After(touched) {
		touched = m.LastUsedAt
	}
	if !touched.IsZero() && w.RecencyHalfLife > 0 {
		age := now.Sub(touched)
		if age < 0 {
			age = 0
		}
		s += w.Recency * math.Exp2(-float64(age)/float64(w.RecencyHalfLife))
	}
	if m.UseCount > 0 && w.UseSaturation > 0 {
		u := math.Log1p(float64(m.UseCount)) / math.Log1p(float64(w.UseSaturation))
		s += w.Use * math.Min(1, u)
	}
	if typeWeight <= 0 {
		typeWeight = 1
	}
	return s * typeWeight
}

// Factor is what salience multiplies a hit's relevance by:
//
//	factor = clamp(1 + Share·(salience − 1), 1 − Swing, 1 + Swing)
//
// With the default Share 0.5 and Swing 0.1, salience reorders matches
// within about 20% of each other and never lifts a match weaker by more
// than that (1.1/0.9) above a better one: what a memory says about the
// query decides, its standing breaks near-ties.
func Factor(salience float64, w Weights) float64 {
	f := 1 + w.Share*(salience-1)
	if w.Swing > 0 {
		f = min(max(f, 1-w.Swing), 1+w.Swing)
	}
	return f
}

// Combine is the final score of a hit: relevance (its match relative to
// the best hit's, in (0, 1]) times the salience factor.
func Combine(relevance, salience float64, w Weights) float64 {
	return relevance * Factor(salience, w)
}
