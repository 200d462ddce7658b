package postgres

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Bulk creation: after bulkAfter creates in one transaction (an import),
// CreateMemory no longer inserts each memory: it hands them, streamBatch
// at a time, to one COPY into memories that runs on the transaction's
// connection while the caller goes on preparing the next ones. Any other
// statement of the transaction first ends the COPY (syncTx), so the
// transaction still reads its own writes, in the order it made them.
const (
	bulkAfter   = 64
	streamBatch = 256
)

// memoryStream is a running COPY of memories: the CopyFromSource it reads
// from is fed batches of rows through a channel.
type memoryStream struct {
	batches chan [][]any
	done    chan struct{} // closed when the COPY has ended
	err     error         // the COPY's, once done is closed
	cur     [][]any
	row     []any
}

func (m *memoryStream) Next() bool {
	for len(m.cur) == 0 {
		b, ok := <-m.batches
		if !ok {
			return false
		}
		m.cur = b
	}
	m.row, m.cur = m.cur[0], m.cur[1:]
	return true
}

func (m *memoryStream) Values() ([]any, error) { return m.row, nil }
func (m *memoryStream) Err() error             { return nil }

var memoryColumnNames = strings.Split(strings.Join(strings.Fields(memoryColumns), ""), ",")

// streamMemory adds m to the running COPY of the transaction, starting
// one if none runs.
func (t *Tx) streamMemory(ctx context.Context, m *cairn.Memory) error {
	if t.failed != nil {
		return t.failed
	}
	t.pending = append(t.pending, append([]any{m.ID}, memoryArgs(m)...))
	if len(t.pending) < streamBatch {
		return nil
	}
	return t.sendPending(ctx)
}

func (t *Tx) sendPending(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	if t.stream == nil {
		s := &memoryStream{batches: make(chan [][]any, 8), done: make(chan struct{})}
		t.stream = s
		raw := t.raw
		// The COPY outlives this call: it must not end with the context
		// of one CreateMemory, only with the transaction's (see endStream).
		go func() {
			defer close(s.done)
			_, s.err = raw.CopyFrom(t.ctx, pgx.Identifier{"memories"}, memoryColumnNames, s)
		}()
	}
	b := t.pending
	t.pending = nil
	t.wrote = true
	select {
	case t.stream.batches <- b:
		return nil
	case <-t.stream.done:
		return t.endStream(ctx)
	case <-ctx.Done():
		return t.fail(translate(ctx.Err(), "store memories"))
	}
}

// endStream sends the memories kept so far and waits for the COPY to end.
// A conflict found then (a memory created meanwhile by another process
// with the same id or key) fails the whole transaction with ECONFLICT.
func (t *Tx) endStream(ctx context.Context) error {
	if t.failed != nil {
		return t.failed
	}
	if len(t.pending) > 0 {
		if t.stream == nil && len(t.pending) > 0 {
			if err := t.copyPending(ctx); err != nil {
				return err
			}
		} else if err := t.sendPending(ctx); err != nil {
			return err
		}
	}
	s := t.stream
	if s == nil {
		return nil
	}
	t.stream = nil
	close(s.batches)
	<-s.done
	if s.err != nil {
		err := translate(s.err, "store memories")
		if cairn.ErrorCode(err) == cairn.ECONFLICT {
			err = cairn.WrapError(cairn.ECONFLICT, err, "memories stored in bulk conflict with memories written meanwhile (same id, or same project, type and key); nothing was written, run it again")
		}
		return t.fail(err)
	}
	return nil
}

// copyPending inserts the kept memories in one COPY (fewer than
// streamBatch: not worth a stream).
func (t *Tx) copyPending(ctx context.Context) error {
	rows := t.pending
	t.pending = nil
	t.wrote = true
	if _, err := t.raw.CopyFrom(ctx, pgx.Identifier{"memories"}, memoryColumnNames, pgx.CopyFromRows(rows)); err != nil {
		err = translate(err, "store memories")
		if cairn.ErrorCode(err) == cairn.ECONFLICT {
			err = cairn.WrapError(cairn.ECONFLICT, err, "memories stored in bulk conflict with memories written meanwhile (same id, or same project, type and key); nothing was written, run it again")
		}
		return t.fail(err)
	}
	return nil
}

// abortStream ends a running COPY without caring for its outcome, before
// the transaction is rolled back.
func (t *Tx) abortStream() {
	if s := t.stream; s != nil {
		t.stream = nil
		close(s.batches)
		<-s.done
	}
}

func (t *Tx) fail(err error) error {
	t.failed = err
	return err
}

// syncTx is the transaction as the Tx's methods use it: every statement
// first ends the running COPY of memories, if any.
type syncTx struct {
	pgx.Tx
	t *Tx
}

func (s syncTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := s.t.endStream(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return s.Tx.Exec(ctx, sql, args...)
}

func (s syncTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := s.t.endStream(ctx); err != nil {
		return nil, err
	}
	return s.Tx.Query(ctx, sql, args...)
}

func (s syncTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := s.t.endStream(ctx); err != nil {
		return errRow{err}
	}
	return s.Tx.QueryRow(ctx, sql, args...)
}

func (s syncTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := s.t.endStream(ctx); err != nil {
		return 0, err
	}
	return s.Tx.CopyFrom(ctx, table, cols, src)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
