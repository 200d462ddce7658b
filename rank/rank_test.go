package rank_test

import (
	"math"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/rank"
)

func TestSalienceFollowsConfidenceRecencyUseAndType(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := rank.DefaultWeights()
	base := func() *cairn.Memory {
		return &cairn.Memory{Confidence: 0.5, UpdatedAt: now.Add(-365 * 24 * time.Hour)}
	}
	s0 := rank.Salience(base(), now, 1, w)

	hi := base()
	hi.Confidence = 0.9
	if s := rank.Salience(hi, now, 1, w); s <= s0 {
		t.Errorf("higher confidence: %v, not above %v", s, s0)
	}

	fresh := base()
	fresh.UpdatedAt = now
	half := base()
	half.UpdatedAt = now.Add(-w.RecencyHalfLife)
	sf, sh := rank.Salience(fresh, now, 1, w), rank.Salience(half, now, 1, w)
	if math.Abs((sf-s0)-w.Recency) > 0.01 || math.Abs((sh-s0)-w.Recency/2) > 0.01 {
		t.Errorf("recency bonus: fresh +%v, one half-life +%v; want %v and %v", sf-s0, sh-s0, w.Recency, w.Recency/2)
	}
	future := base()
	future.UpdatedAt = now.Add(time.Hour) // a clock skew never gives more than fresh
	if s := rank.Salience(future, now, 1, w); s > sf+1e-9 {
		t.Errorf("a future update time gives %v, more than fresh %v", s, sf)
	}

	used := base()
	used.UseCount = 1000
	if s := rank.Salience(used, now, 1, w); math.Abs((s-s0)-w.Use) > 1e-9 {
		t.Errorf("use bonus saturates at %v, got %v", w.Use, s-s0)
	}

	if s := rank.Salience(base(), now, 0.5, w); math.Abs(s-s0/2) > 1e-9 {
		t.Errorf("type weight 0.5: %v, want %v", s, s0/2)
	}
	if s := rank.Salience(base(), now, 0, w); s != s0 {
		t.Errorf("type weight 0 must mean neutral: %v, want %v", s, s0)
	}
}

// A clearly better match is never overtaken by a weaker one, however
// salient: the factor is bounded, and it still breaks near-ties.
func TestCombineNeverLiftsAClearlyWeakerMatch(t *testing.T) {
	t.Parallel()
	w := rank.DefaultWeights()
	best, worst := 1.4*1.2, 0.5 // the most and least salient memories possible
	if rank.Combine(0.75, best, w) >= rank.Combine(1, worst, w) {
		t.Errorf("relevance 0.75 at salience %v scores %v, above relevance 1 at salience %v: %v",
			best, rank.Combine(0.75, best, w), worst, rank.Combine(1, worst, w))
	}
	if rank.Combine(0.95, 1.3, w) <= rank.Combine(1, 0.9, w) {
		t.Error("salience must still break a near-tie")
	}
	if got := rank.Factor(1, w); got != 1 {
		t.Errorf("neutral salience gives factor %v, want 1", got)
	}
}
