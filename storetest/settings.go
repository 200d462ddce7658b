package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

var settingsStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"ProjectSettingsRoundTripByProject", testProjectSettingsRoundTrip},
	{"ProjectSettingsRefuseBadInputAndReads", testProjectSettingsRefused},
}

func findSettings(t *testing.T, s cairn.Store, project string) (*cairn.StoredSettings, error) {
	t.Helper()
	var out *cairn.StoredSettings
	err := s.View(t.Context(), func(tx cairn.Tx) error {
		var err error
		out, err = tx.FindProjectSettings(t.Context(), project)
		return err
	})
	return out, err
}

func testProjectSettingsRoundTrip(t *testing.T, s cairn.Store) {
	if _, err := findSettings(t, s, "a"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("settings of a new store: %v, want ENOTFOUND", err)
	}
	a := cairn.StoredSettings{Project: "a", Document: `{"context":{"budget":77}}`, Source: "/home/ünï/a/.cairn/cairn.toml",
		Fingerprint: "f1", Folder: "/home/ünï/a", UpdatedAt: at(time.Hour)}
	b := cairn.StoredSettings{Project: "b", Document: `{"lifecycle":{"learning":{"ttl_days":2}}}`, UpdatedAt: at(2 * time.Hour)}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.PutProjectSettings(ctx, a); err != nil {
			return err
		}
		return tx.PutProjectSettings(ctx, b)
	})
	check := func(want cairn.StoredSettings) {
		t.Helper()
		got, err := findSettings(t, s, want.Project)
		if err != nil {
			t.Fatalf("FindProjectSettings(%q): %v", want.Project, err)
		}
		if *got != want {
			t.Errorf("FindProjectSettings(%q) = %+v, want %+v", want.Project, *got, want)
		}
		if got.UpdatedAt.Location() != time.UTC {
			t.Errorf("%s: UpdatedAt in %v, want UTC", want.Project, got.UpdatedAt.Location())
		}
	}
	check(a)
	check(b)
	// A second write replaces its project's settings only.
	a2 := cairn.StoredSettings{Project: "a", Document: `{}`, Fingerprint: "f2", UpdatedAt: at(3 * time.Hour)}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.PutProjectSettings(ctx, a2) })
	check(a2)
	check(b)
	// Deleting one project's leaves the other's; deleting none is no error.
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.DeleteProjectSettings(ctx, "a"); err != nil {
			return err
		}
		return tx.DeleteProjectSettings(ctx, "never")
	})
	if _, err := findSettings(t, s, "a"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("settings after delete: %v, want ENOTFOUND", err)
	}
	check(b)
}

// Bad inputs tried: an empty project, an empty document, a document over
// cairn.MaxSettingsBytes, and writes in a View.
func testProjectSettingsRefused(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	for name, bad := range map[string]cairn.StoredSettings{
		"no project":  {Document: "{}"},
		"no document": {Project: "p"},
		"too large":   {Project: "p", Document: `{"x":"` + strings.Repeat("x", cairn.MaxSettingsBytes) + `"}`},
	} {
		err := s.Update(ctx, func(tx cairn.Tx) error { return tx.PutProjectSettings(ctx, bad) })
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%s: PutProjectSettings = %v, want EINVALID", name, err)
		}
	}
	err := s.View(ctx, func(tx cairn.Tx) error {
		return tx.PutProjectSettings(ctx, cairn.StoredSettings{Project: "p", Document: "{}"})
	})
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("PutProjectSettings in a View = %v, want EINVALID", err)
	}
	err = s.View(ctx, func(tx cairn.Tx) error { return tx.DeleteProjectSettings(ctx, "p") })
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("DeleteProjectSettings in a View = %v, want EINVALID", err)
	}
	if _, err := findSettings(t, s, "p"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("after refused writes: %v, want ENOTFOUND", err)
	}
}
