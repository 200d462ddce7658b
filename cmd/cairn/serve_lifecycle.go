package main

import (
	"context"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// maintainInBackground applies the lifecycle to the server's project when
// it is due (daily), while the server runs: a hook that starts the server
// at session start so has the cleanup run, and no one waits for it.
func maintainInBackground(ctx context.Context, eng *engine.Engine, project string, errw io.Writer) {
	go eng.MaintainEvery(ctx, project, func(rep *cairn.MaintenanceReport, err error) {
		if err != nil {
			fmt.Fprintf(errw, "cairn: the daily cleanup of project %s failed: %s\n", project, oneLine(cairn.ErrorMessage(err)))
			return
		}
		fmt.Fprintf(errw, "cairn: daily cleanup of project %s: %d expired, %d deleted, %d decayed\n", project, rep.Expired, rep.Deleted, rep.Decayed)
	})
}
