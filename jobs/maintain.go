package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// maintainInBackground applies the lifecycle to the server's project when
// it is due (daily), while the server runs: a hook that starts the server
// at session start so has the cleanup run, and no one waits for it. The
// first check is a minute after start, or CAIRN_SERVE_CLEANUP_AFTER (a
// duration such as 5s) when set.
func maintainInBackground(ctx context.Context, m *Main, eng *engine.Engine, project string, errw io.Writer) {
	first := time.Duration(-1)
	if v := m.Getenv("CAIRN_SERVE_CLEANUP_AFTER"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fmt.Fprintf(errw, "cairn: CAIRN_SERVE_CLEANUP_AFTER=%q is not a duration such as 5s; the first cleanup check is in a minute\n", v)
		} else {
			first = d
		}
	}
	go eng.MaintainEvery(ctx, project, first, func(rep *cairn.MaintenanceReport, err error) {
		if err != nil {
			fmt.Fprintf(errw, "cairn: the daily cleanup of project %s failed: %s\n", project, oneLine(cairn.ErrorMessage(err)))
			return
		}
		fmt.Fprintf(errw, "cairn: daily cleanup of project %s: %d expired, %d deleted, %d decayed\n", project, rep.Expired, rep.Deleted, rep.Decayed)
	})
}
