package cairn_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

func TestTitleFromContent(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghij", 12) // 120 bytes, one word per 10
	tests := []struct {
		name, content, want string
	}{
		{"first sentence", "fmt.Errorf wraps. Second", "fmt.Errorf wraps"},
		{"version numbers do not end a sentence", "Upgrade to v1.2.3 now. Then test", "Upgrade to v1.2.3 now"},
		{"final period dropped", "Use tabs.", "Use tabs"},
		{"first line only", "first line\nsecond line", "first line"},
		{"leading blank lines skipped", "\n\n  title here  \nbody", "title here"},
		{"CRLF", "title\r\nbody", "title"},
		{"leading period kept", ".env is ignored", ".env is ignored"},
		{"short text kept", "short", "short"},
		{"exactly 100 bytes kept", long[:100], long[:100]},
		{"cut at 100 bytes", long, long[:100] + "..."},
		{"empty", "   ", ""},
		// Terminal output: colours, cursor moves, OSC titles, a progress
		// line's carriage return, tabs, bells and C1 controls.
		{"ANSI colours dropped", "\x1b[31mFAIL\x1b[0m TestAuth (0.01s)\nmore", "FAIL TestAuth (0.01s)"},
		{"carriage return ends the line", "ok  \tpkg/auth\r\x1b[2K done", "ok   pkg/auth"},
		{"OSC title dropped", "\x1b]0;build\x07go vet found nothing", "go vet found nothing"},
		{"OSC ended by ST dropped", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ text", "link text"},
		{"two-byte escape and controls dropped", "\x1b(Bbell\x07 and \u0085next", "bell and next"},
		{"blank coloured line skipped", "\x1b[1m\x1b[0m\r\nreal title", "real title"},
		{"cut escape at the end", "title\x1b[", "title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := cairn.TitleFromContent(tt.content); got != tt.want {
				t.Errorf("TitleFromContent(%q) = %q, want %q", tt.content, got, tt.want)
			}
		})
	}
}

func TestTitleFromContentCutsOnRuneBoundary(t *testing.T) {
	t.Parallel()
	for pad := 95; pad <= 100; pad++ {
		// A run of 4-byte runes straddling byte 100.
		content := strings.Repeat("a", pad) + strings.Repeat("🚀", 5)
		got := cairn.TitleFromContent(content)
		if !utf8.ValidString(got) {
			t.Fatalf("pad %d: title %q is not valid UTF-8", pad, got)
		}
		if !strings.HasSuffix(got, "...") {
			t.Fatalf("pad %d: title %q lacks ...", pad, got)
		}
		body := strings.TrimSuffix(got, "...")
		if len(body) > 100 || len(body) < 97 || !strings.HasPrefix(content, body) {
			t.Errorf("pad %d: title body %q (%d bytes) is not the longest rune-aligned prefix within 100 bytes", pad, body, len(body))
		}
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"note", "error_solution", "agent:claude", "scope:global", "v1.2", "a/b-c", "9lives", strings.Repeat("a", cairn.MaxNameBytes)} {
		if !cairn.ValidName(s) {
			t.Errorf("ValidName(%q) = false", s)
		}
	}
	for _, s := range []string{"", "Bad", "bad type", "_x", ":x", "x!", "é", "tab\t", strings.Repeat("a", cairn.MaxNameBytes+1)} {
		if cairn.ValidName(s) {
			t.Errorf("ValidName(%q) = true", s)
		}
	}
}

func TestValidProject(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"cairn", "/home/me/src/cairn", "My Project", "日本"} {
		if !cairn.ValidProject(s) {
			t.Errorf("ValidProject(%q) = false", s)
		}
	}
	for _, s := range []string{"", "a\nb", "a\x00", "\x7f", "bad\xff", strings.Repeat("p", cairn.MaxNameBytes+1)} {
		if cairn.ValidProject(s) {
			t.Errorf("ValidProject(%q) = true", s)
		}
	}
}

func TestNormalizeContentFoldsWhiteSpace(t *testing.T) {
	t.Parallel()
	if got := cairn.NormalizeContent("  Run \t go  test\n\n-race \r\n"); got != "Run go test -race" {
		t.Errorf("NormalizeContent = %q", got)
	}
}

func TestLiveIsFalseWhenExpiredOrSuperseded(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		m    cairn.Memory
		want bool
	}{
		{cairn.Memory{}, true},
		{cairn.Memory{ExpiresAt: now.Add(time.Millisecond)}, true},
		{cairn.Memory{ExpiresAt: now}, false},
		{cairn.Memory{ExpiresAt: now.Add(-time.Hour)}, false},
		{cairn.Memory{SupersededBy: "mem-x"}, false},
	}
	for i, tt := range tests {
		if got := tt.m.Live(now); got != tt.want {
			t.Errorf("%d: Live = %v, want %v", i, got, tt.want)
		}
	}
}

func TestErrorCodeAndMessage(t *testing.T) {
	t.Parallel()
	inner := cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", "x")
	wrapped := fmt.Errorf("find: %w", inner)
	if got := cairn.ErrorCode(wrapped); got != cairn.ENOTFOUND {
		t.Errorf("ErrorCode(wrapped) = %q", got)
	}
	if got := cairn.ErrorCode(errors.New("driver")); got != cairn.EINTERNAL {
		t.Errorf("ErrorCode(plain) = %q", got)
	}
	if got := cairn.ErrorCode(nil); got != "" {
		t.Errorf("ErrorCode(nil) = %q", got)
	}
	if got := cairn.ErrorMessage(wrapped); got != "no memory with id x" {
		t.Errorf("ErrorMessage = %q", got)
	}
	cause := errors.New("disk on fire")
	e := cairn.WrapError(cairn.EUNAVAILABLE, cause, "cannot write")
	if !errors.Is(e, cause) || e.Error() != "cannot write: disk on fire" {
		t.Errorf("WrapError = %q, Is(cause) = %v", e.Error(), errors.Is(e, cause))
	}
	if got := cairn.ErrorMessage(errors.New("x")); !strings.HasPrefix(got, "internal error") {
		t.Errorf("ErrorMessage(plain) = %q", got)
	}
}

func TestDefaultTypesHaveWeights(t *testing.T) {
	t.Parallel()
	ps := cairn.DefaultTypes()
	if _, ok := ps[cairn.DefaultType]; !ok {
		t.Fatalf("DefaultTypes lacks %s", cairn.DefaultType)
	}
	for name, p := range ps {
		if p.Weight <= 0 || p.Name != name {
			t.Errorf("%s: weight %v name %q", name, p.Weight, p.Name)
		}
	}
	if p := ps.Of("made_up"); p.Tier != cairn.TierRelevant || p.Weight != 1 || p.TTL != 0 {
		t.Errorf("Of(unknown) = %+v", p)
	}
	if c := cairn.InitialConfidence(ps.Of("fix"), cairn.SourceAutomatic); c != 0.7 {
		t.Errorf("InitialConfidence(fix) = %v, want the policy's 0.7", c)
	}
	if c := cairn.InitialConfidence(ps.Of("note"), cairn.SourceExplicit); c != 0.6 {
		t.Errorf("InitialConfidence(note, explicit) = %v, want 0.6", c)
	}
}

func TestTitleRepeatsContentFoldsWhiteSpaceAndACut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		content, title string
		want           bool
	}{
		{"Tests use  t.Run.\nMore", "Tests use t.Run", true},
		{"  Tests\tuse t.Run", "Tests use", true},
		{"Tests use t.Run", "Tests used", false},
		{"Short", "Short but longer", false},
		{"anything", "", true},
		{"Tests use", "Tests  use", true},
		{"Testsuse", "Tests use", false},
		{"Errors wrap with fmt.Errorf and %w; never compare", "Errors wrap with fmt.Errorf and...", true},
		{"Errors wrap with fmt.Errorf", "Errors wrap with fmt.Errorf, always...", false},
	} {
		if got := cairn.TitleRepeatsContent(c.title, c.content); got != c.want {
			t.Errorf("TitleRepeatsContent(%q, %q) = %v, want %v", c.title, c.content, got, c.want)
		}
	}
}

// CutBytes never splits a character: a cut inside a two- or three-byte
// rune moves back to its start; a short string is returned whole.
func TestCutBytesKeepsWholeCharacters(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"café", 4, "caf"},
		{"café", 5, "café"},
		{"ab€cd", 3, "ab"},
		{"ab€cd", 5, "ab€"},
		{"plain", 10, "plain"},
		{"€", 0, ""},
	} {
		if got := cairn.CutBytes(c.s, c.n); got != c.want {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestBoostedAppliesEachUseUpToTheMax(t *testing.T) {
	for _, c := range []struct {
		conf float64
		uses int64
		want float64
	}{
		{0.5, 0, 0.5},
		{0.5, 3, 0.56},
		{0.9, 5, 0.95},  // stops at the max
		{1.0, 2, 1.0},   // set above the max by hand: left as it is
		{0.94, 1, 0.95}, // one step capped
	} {
		if got := cairn.Boosted(c.conf, c.uses, cairn.UsageBoost, cairn.MaxConfidence); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Boosted(%v, %d) = %v, want %v", c.conf, c.uses, got, c.want)
		}
	}
}
