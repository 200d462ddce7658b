package engine

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

var t0 = time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

func TestDecayOfCountsWholeWeeksSinceLastUseOrDecay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		s         cairn.LifecycleState
		at        time.Duration // after t0
		conf      float64
		weeks     int
		clockDays int // the new decay clock, in days after t0
	}{
		{"unused six days", cairn.LifecycleState{Confidence: 0.5, CreatedAt: t0}, days(6), 0.5, 0, 0},
		{"unused one week", cairn.LifecycleState{Confidence: 0.5, CreatedAt: t0}, days(7), 0.48, 1, 7},
		{"unused 20 days", cairn.LifecycleState{Confidence: 0.5, CreatedAt: t0}, days(20), 0.46, 2, 14},
		{"used since", cairn.LifecycleState{Confidence: 0.5, CreatedAt: t0, LastUsedAt: t0.Add(days(15))}, days(20), 0.5, 0, 0},
		{"decayed this week", cairn.LifecycleState{Confidence: 0.48, CreatedAt: t0, DecayedAt: t0.Add(days(7))}, days(13), 0.48, 0, 7},
		{"decayed last week", cairn.LifecycleState{Confidence: 0.48, CreatedAt: t0, DecayedAt: t0.Add(days(7))}, days(15), 0.46, 1, 14},
		{"use after decay", cairn.LifecycleState{Confidence: 0.5, CreatedAt: t0, DecayedAt: t0.Add(days(7)), LastUsedAt: t0.Add(days(10))}, days(24), 0.46, 2, 24},
		{"floor", cairn.LifecycleState{Confidence: 0.15, CreatedAt: t0}, days(70), 0.1, 10, 70},
		{"at the floor", cairn.LifecycleState{Confidence: 0.1, CreatedAt: t0}, days(70), 0.1, 0, 0},
		{"set above the cap", cairn.LifecycleState{Confidence: 1, CreatedAt: t0}, days(7), 0.98, 1, 7},
	} {
		conf, weeks, clock := decayOf(c.s, t0.Add(c.at))
		wantClock := time.Time{}
		if c.clockDays > 0 {
			wantClock = t0.Add(days(c.clockDays))
		}
		if conf != c.conf || weeks != c.weeks || !clock.Equal(wantClock) {
			t.Errorf("%s: decayOf = %v, %d weeks, clock %v; want %v, %d, %v", c.name, conf, weeks, clock, c.conf, c.weeks, wantClock)
		}
	}
}

func TestMaintenanceOfExplainsEachAction(t *testing.T) {
	t.Parallel()
	e := New(nil, nil)
	now := t0.Add(days(45))
	for _, c := range []struct {
		name   string
		s      cairn.LifecycleState
		action string
		reason string
		pinned bool
	}{
		{"session past its TTL",
			cairn.LifecycleState{Type: "session", Confidence: 0.5, CreatedAt: t0, ExpiresAt: t0.Add(days(30)), LastUsedAt: now},
			cairn.ActionExpired, "expired: session memories live 30 days, created 2026-09-01", false},
		{"expiry set by hand",
			cairn.LifecycleState{Type: "note", Confidence: 0.5, CreatedAt: t0, ExpiresAt: t0.Add(days(3)), LastUsedAt: now},
			cairn.ActionExpired, "expired: it was set to expire on 2026-09-04", false},
		{"low value",
			cairn.LifecycleState{Type: "note", Confidence: 0.12, CreatedAt: t0, DecayedAt: t0.Add(days(42))},
			cairn.ActionDeleted, "low value: confidence 0.12, never used, 45 days old", false},
		{"decay",
			cairn.LifecycleState{Type: "note", Confidence: 0.5, CreatedAt: t0, LastUsedAt: t0.Add(days(31))},
			cairn.ActionDecayed, "decay 0.50 → 0.46 (2 weeks unused)", false},
		{"used once: not low value",
			cairn.LifecycleState{Type: "note", Confidence: 0.12, CreatedAt: t0, UseCount: 1, LastUsedAt: now},
			"", "", false},
		{"pinned and expired",
			cairn.LifecycleState{Type: "session", Confidence: 0.5, CreatedAt: t0, ExpiresAt: t0.Add(days(30)), Pinned: true},
			"", "", true},
		{"pinned and fresh",
			cairn.LifecycleState{Type: "note", Confidence: 0.5, CreatedAt: t0, LastUsedAt: now, Pinned: true},
			"", "", false},
	} {
		it, _, pinned := e.maintenanceOf(c.s, now)
		if it.Action != c.action || it.Reason != c.reason || pinned != c.pinned {
			t.Errorf("%s: %q %q pinned=%v; want %q %q pinned=%v", c.name, it.Action, it.Reason, pinned, c.action, c.reason, c.pinned)
		}
	}
}
