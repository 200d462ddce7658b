package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runVerify confirms that a memory still holds: its verified time becomes
// now, so that a context no longer marks it possibly stale until one of
// its files changes again.
func runVerify(ctx context.Context, m *Main, g *globals, args []string) error {
	return updateOne(ctx, m, g, "verify", args, func(_ *cairn.Memory, svc cairn.App) cairn.MemoryUpdate {
		now := svc.Now()
		return cairn.MemoryUpdate{VerifiedAt: &now}
	}, func(_, mem *cairn.Memory) string {
		return fmt.Sprintf("verified %s at %s", mem.ID, wire.FormatTime(mem.VerifiedAt))
	})
}
