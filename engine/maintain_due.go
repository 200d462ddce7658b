package engine

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// MaintenanceEvery is how often the lifecycle (decay, expiry, cleanup of
// low-value memories) runs by itself: seed 000's daily cleanup.
const MaintenanceEvery = 24 * time.Hour

// maintenanceCheckEvery is how often a running server asks whether the
// lifecycle is due.
const maintenanceCheckEvery = time.Hour

// lifecycleSource is where the time of a project's last run is kept: the
// ingest state's table, under a name no transcript path can have (a path
// is absolute), its offset the run's time in Unix milliseconds. It needs
// no table of its own, on either backend.
func lifecycleSource(project string) string { return "cairn-lifecycle:" + project }

// MaintainIfDue applies the lifecycle (Maintain with apply) to project
// when it last ran at least every ago (or never), and records when it ran.
// It returns the report, or nil when it was not due. Two processes that
// find it due at once both run it: a second run the same day finds
// little to do.
func (e *Engine) MaintainIfDue(ctx context.Context, project string, every time.Duration) (*cairn.MaintenanceReport, error) {
	now := e.Now()
	var last int64
	if err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		last, err = tx.FindIngestOffset(ctx, lifecycleSource(project))
		return err
	}); err != nil {
		return nil, err
	}
	if last > 0 && now.Sub(time.UnixMilli(last)) < every {
		return nil, nil
	}
	rep, err := e.Maintain(ctx, project, true)
	if err != nil {
		return nil, err
	}
	err = e.store.Update(ctx, func(tx cairn.Tx) error {
		return tx.PutIngestState(ctx, lifecycleSource(project), now.UnixMilli(), "", now)
	})
	return rep, err
}

// MaintenanceFirstAfter is how long a server waits after it starts before
// it first asks by default: its first minute answers the prompt of the
// session that started it, and takes no write lock for the lifecycle then.
const MaintenanceFirstAfter = time.Minute

// MaintainEvery runs MaintainIfDue for project firstAfter after it is
// called (a negative value means MaintenanceFirstAfter) and then every
// hour until ctx is done, so that a server applies the lifecycle daily
// (MaintenanceEvery) without anyone waiting for it. report, when set, gets
// each run that did something or failed.
func (e *Engine) MaintainEvery(ctx context.Context, project string, firstAfter time.Duration, report func(*cairn.MaintenanceReport, error)) {
	if firstAfter < 0 {
		firstAfter = MaintenanceFirstAfter
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(firstAfter):
	}
	t := time.NewTicker(maintenanceCheckEvery)
	defer t.Stop()
	for {
		rep, err := e.MaintainIfDue(ctx, project, MaintenanceEvery)
		if ctx.Err() != nil {
			return
		}
		if report != nil && (err != nil || rep != nil && rep.Expired+rep.Deleted+rep.Decayed > 0) {
			report(rep, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
