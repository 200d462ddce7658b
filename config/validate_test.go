package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultConfigValidates(t *testing.T) {
	t.Parallel()
	if err := Validate(Default()); err != nil {
		t.Fatalf("the default configuration fails its own checks: %v", err)
	}
}

// Bad inputs tried: a budget above the file's limit, a negative relevant
// limit, an unknown format.
func TestValidateNamesTheKeyOutOfBounds(t *testing.T) {
	t.Parallel()
	for key, change := range map[string]func(*Config){
		"context.budget":         func(c *Config) { c.Context.Budget = maxBudget + 1 },
		"context.relevant.limit": func(c *Config) { c.Context.Relevant.Limit = -1 },
		"context.format":         func(c *Config) { c.Context.Format = "yaml" },
	} {
		c := Default()
		change(c)
		err := Validate(c)
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s out of bounds: got %v, want an error naming the key", key, err)
		}
	}
}

func TestEffectiveIsLoadWithoutSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestFile(t, ProjectFile(dir), "[context]\nbudget = 77\nmode = \"eco\"\n")
	full, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	eff, err := Effective(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full.Config, eff.Config) || !reflect.DeepEqual(full.Files, eff.Files) {
		t.Errorf("Effective's configuration differs from Load's:\n%+v\n%+v", eff.Config, full.Config)
	}
	if eff.Sources != nil || len(full.Sources) == 0 {
		t.Errorf("sources: Effective %d, Load %d; want none and some", len(eff.Sources), len(full.Sources))
	}
	// A bad file is refused by both.
	writeTestFile(t, ProjectFile(dir), "[context]\nbudget = -3\n")
	if _, err := Effective(dir, ""); err == nil {
		t.Error("Effective took a negative budget")
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
