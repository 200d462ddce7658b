package recall_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/recall"
)

// The block before an edit and the lookup of the file ask one matcher
// whether a memory is about the file, so they find the same memories;
// the cases are those where the two matchers cairn had disagreed (a bare
// file name, an absolute path, a folder's glob, two relative paths, "**"
// twice).
func TestTheEditBlockAndTheFileLookupAgreeOnWhatIsAboutTheFile(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	file := "internal/auth/token.go"
	about := map[string]bool{}
	var relative string // the memory of "auth/token.go"
	for i, c := range []struct {
		ref   string
		about bool
	}{
		{"internal/auth/token.go", true},
		{"token.go", true},                            // a bare name: the lookup's answer
		{"/home/u/proj/internal/auth/token.go", true}, // an absolute path: the lookup's answer
		{"internal/auth/*", true},
		{"internal/**/auth/**/*.go", true}, // "**" twice: the lookup's answer
		{"internal", true},
		{"auth/token.go", false}, // two relative paths: not the lookup's answer
		{"internal/au*", false},  // a glob of names is no folder: not the block's answer
		{"internal/auth/session.go", false},
	} {
		// Words the file's name does not hold, so that only the matcher
		// can choose them.
		id := add(t, e, &cairn.Memory{Type: "pitfall", Content: []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
			"golf", "hotel", "india"}[i] + " keeps its state in one place", FileRefs: []string{c.ref}})
		about[id] = c.about
		if c.ref == "auth/token.go" {
			relative = id
		}
	}
	var want []string
	for id, ok := range about {
		if ok {
			want = append(want, id)
		}
	}
	slices.Sort(want)

	b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Profile: cairn.ProfileEdit, Project: "p", Files: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	// The block also finds by words ("token" is in the text a reference
	// is indexed with); the matcher's choice is what overlaps the file.
	var edit []string
	for _, it := range b.Selection.Items {
		for _, r := range it.Reasons {
			if r.Name == "file overlap" {
				edit = append(edit, it.Memory.ID)
			}
		}
	}
	slices.Sort(edit)
	lk, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupFile, Subject: file})
	if err != nil {
		t.Fatal(err)
	}
	lookup := lk.IDs()
	slices.Sort(lookup)
	if !slices.Equal(edit, want) {
		t.Errorf("the block before an edit of %s shows %v, want %v", file, edit, want)
	}
	if !slices.Equal(lookup, want) {
		t.Errorf("the lookup of %s shows %v, want %v", file, lookup, want)
	}
	// The absolute path of the file finds the same, and the memory of
	// auth/token.go: an absolute path is matched on its tails, as it
	// cannot tell which of its folders is the project's.
	want = append(want, relative)
	slices.Sort(want)
	abs, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupFile, Subject: "/home/u/proj/" + file})
	if err != nil {
		t.Fatal(err)
	}
	got := abs.IDs()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the lookup of the absolute path shows %v, want %v", got, want)
	}
}

// Every profile is well formed: a context profile scores by seed 000 and
// names no lookup, a lookup profile names its kind, and the names are the
// table's keys.
func TestTheProfilesAreWellFormed(t *testing.T) {
	t.Parallel()
	for name, p := range recall.Profiles() {
		if p.Name != name {
			t.Errorf("profile %q is named %q", name, p.Name)
		}
		switch {
		case p.Weights.Seed000:
			if p.Lookup != "" || p.Floor != recall.FloorConfig {
				t.Errorf("context profile %q: lookup %q, floor %v", name, p.Lookup, p.Floor)
			}
		case p.Lookup != "":
			if p.Budget <= 0 || p.Limit <= 0 || len(p.Weights.ByFacet) == 0 && p.Weights.Other <= 0 {
				t.Errorf("lookup profile %q: %+v", name, p)
			}
		case name != cairn.ProfileLoop:
			t.Errorf("profile %q is neither a context block, a lookup nor the loop", name)
		}
		if p.Types != 0 && len(cairn.TypesWith(p.Types)) == 0 {
			t.Errorf("profile %q names facets no type has", name)
		}
	}
	if _, err := recall.ProfileOf("nonesuch"); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("an unknown profile: %v", err)
	}
	if _, err := recall.Build(t.Context(), newEngine(t, time.Now), cairn.DefaultSettings(), cairn.ContextRequest{Profile: cairn.ProfileLookupFile, Project: "p"}); err == nil {
		t.Error("a lookup's profile made a context block")
	}
}
