package config

import (
	"strings"
	"testing"
)

func TestDefaultConfigValidates(t *testing.T) {
	t.Parallel()
	if err := Default().Validate(); err != nil {
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
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s out of bounds: got %v, want an error naming the key", key, err)
		}
	}
}
