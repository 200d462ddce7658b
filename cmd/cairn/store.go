package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
)

// storer stores captured memories one at a time: a memory that cannot be
// stored is reported on standard error and counted, and the others are
// still stored. Only a cancelled context, or a server that does not
// answer, stops it.
type storer struct {
	ctx    context.Context
	m      *Main
	svc    adder
	quiet  bool // print no line per stored memory
	counts map[string]int
	failed int
}

// adder stores a memory, as cairn.Service's AddMemory.
type adder interface {
	AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error)
}

func newStorer(ctx context.Context, m *Main, svc adder, quiet bool) *storer {
	return &storer{ctx: ctx, m: m, svc: svc, quiet: quiet, counts: map[string]int{}}
}

// store stores mem and returns the result, or nil when it failed (the
// failure is reported as "cairn: <where>cannot store the <what>: …").
func (st *storer) store(mem *cairn.Memory, where, what string) (*cairn.WriteResult, error) {
	res, err := st.svc.AddMemory(st.ctx, mem)
	if err != nil {
		if st.ctx.Err() != nil {
			return nil, st.ctx.Err()
		}
		if client.IsUnavailable(err) {
			return nil, err
		}
		st.failed++
		fmt.Fprintf(st.m.Stderr, "cairn: %scannot store the %s: %s\n", where, what, oneLine(cairn.ErrorMessage(err)))
		return nil, nil
	}
	st.counts[res.Status]++
	if !st.quiet {
		fmt.Fprintf(st.m.Stdout, "%s %s %s: %s\n", res.Status, res.Memory.ID, res.Memory.Type, res.Memory.Title)
	}
	return res, nil
}
