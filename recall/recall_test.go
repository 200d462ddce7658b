package recall_test

import (
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/recall"
)

func TestContextRequestHonoursTheConfiguration(t *testing.T) {
	t.Parallel()
	c := config.Default()
	req := recall.ContextRequest(c, recall.Request{Project: "p", Prompt: "x"})
	if len(req.CriticalTypes) == 0 || req.CriticalConfidence != 0.9 || req.DynamicCount != 3 || req.RelevantLimit != 8 {
		t.Fatalf("defaults: %+v", req)
	}
	c.Context.Static.MinConstraintConfidence = 0 // "none of those"
	c.Context.Dynamic.Enabled = false
	req = recall.ContextRequest(c, recall.Request{Project: "p", Prompt: "x"})
	if len(req.CriticalTypes) != 0 || req.DynamicCount != 0 {
		t.Errorf("min_constraint_confidence 0 and a disabled dynamic tier: %+v", req)
	}
}
