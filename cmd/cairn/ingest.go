package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/transcript"
)

// runIngest reads an agent transcript and stores what it teaches. It
// remembers how far it read each transcript, so a second run reads only
// the lines added since.
func runIngest(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "ingest", "claude [flags] PATH")
	var hat, agent optString
	var asJSON bool
	fs.Var(&hat, "hat", "the agent role (hat) of the session, e.g. creator")
	fs.Var(&agent, "agent", "the agent of the session (default claude)")
	fs.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "claude" {
		return usagef("ingest: give the kind (claude) and one transcript file")
	}
	path, err := filepath.Abs(pos[1])
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "cannot resolve %s: %v", pos[1], err)
	}
	f, err := os.Open(path)
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", pos[1], err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", pos[1], err)
	}

	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()
	st := s.eng.Store()
	source := path
	var offset int64
	var pending string
	if err := st.View(ctx, func(tx cairn.Tx) error {
		if offset, err = tx.FindIngestOffset(ctx, source); err != nil {
			return err
		}
		pending, err = tx.FindIngestPending(ctx, source)
		return err
	}); err != nil {
		return err
	}
	restarted := false
	if offset > info.Size() {
		offset, restarted = 0, true // the file was rewritten
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", pos[1], err)
	}

	who := agent.v
	if who == "" {
		who = "claude"
	}
	sto := newStorer(ctx, m, s.eng, asJSON)
	store := func(mem *cairn.Memory) error {
		mem.Hat, mem.Agent = hat.v, who
		_, err := sto.store(mem, "", fmt.Sprintf("%s %q", mem.Type, mem.Title))
		return err
	}

	x := transcript.NewExtractor(g.project)
	x.Hat = hat.v
	if !restarted {
		// A test that failed in the lines read before may pass in these.
		if err := x.RestorePending(pending); err != nil {
			fmt.Fprintf(m.Stderr, "cairn: %s; starting without it\n", err)
		}
	}
	resumed := false
	stats, err := transcript.Read(f, func(e transcript.Entry) error {
		if !resumed && e.SessionID != "" {
			resumed = true
			// Continue the summary written by the earlier runs.
			_ = st.View(ctx, func(tx cairn.Tx) error {
				prev, err := tx.FindMemoryByKey(ctx, g.project, "session", transcript.SessionKey(e.SessionID))
				if err == nil {
					x.Resume(prev)
				}
				return nil
			})
		}
		for _, mem := range x.Add(e) {
			if err := store(mem); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "reading %s: %v", pos[1], err)
	}
	if stats.Entries > 0 {
		if mem := x.Finish(); mem != nil {
			if err := store(mem); err != nil {
				return err
			}
		}
	}
	end := offset + stats.Bytes
	if stats.Bytes > 0 || restarted {
		if err := st.Update(ctx, func(tx cairn.Tx) error {
			return tx.PutIngestState(ctx, source, end, x.Pending(), s.eng.Now())
		}); err != nil {
			return err
		}
	}

	counts, failed := sto.counts, sto.failed
	if asJSON {
		if err := writeJSON(m.Stdout, struct {
			Source     string `json:"source"`
			Offset     int64  `json:"offset"`
			Lines      int    `json:"lines"`
			Entries    int    `json:"entries"`
			Skipped    int    `json:"skipped"`
			Malformed  int    `json:"malformed"`
			New        int    `json:"new"`
			Updated    int    `json:"updated"`
			Reinforced int    `json:"reinforced"`
			Unchanged  int    `json:"unchanged"`
			Failed     int    `json:"failed"`
		}{path, end, stats.Lines, stats.Entries, stats.Skipped, stats.Malformed,
			counts[cairn.StatusCreated], counts[cairn.StatusUpdated], counts[cairn.StatusReinforced],
			counts[cairn.StatusUnchanged], failed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(m.Stdout, "ingested %d lines (%d skipped, %d malformed): %d new, %d updated, %d reinforced, %d unchanged\n",
			stats.Lines, stats.Skipped, stats.Malformed, counts[cairn.StatusCreated], counts[cairn.StatusUpdated],
			counts[cairn.StatusReinforced], counts[cairn.StatusUnchanged])
	}
	if failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d memories could not be stored\n", failed)
		return exitError(exitFailure)
	}
	return nil
}
