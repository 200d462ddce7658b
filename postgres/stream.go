package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Bulk creation: after bulkAfter creates in one transaction (an import),
// CreateMemory no longer inserts each memory: it encodes them as rows of
// COPY's binary format and hands them, streamBatch at a time, to one COPY
// into memories that runs on the transaction's connection while the
// caller goes on preparing the next ones. Any other
// statement of the transaction first ends the COPY (syncTx), so the
// transaction still reads its own writes, in the order it made them.
const (
	bulkAfter   = 64
	streamBatch = 256
)

// memoryStream is a running COPY of memories, in COPY's binary format:
// the reader the server's COPY reads from is fed batches of encoded rows
// through a channel.
type memoryStream struct {
	batches chan []byte
	done    chan struct{} // closed when the COPY has ended
	err     error         // the COPY's, once done is closed
	cur     []byte        // what Read gives next
	ended   bool          // the trailer is in cur or was read
}

// Read gives the header, the batches as they come, and the trailer once
// batches is closed.
func (m *memoryStream) Read(p []byte) (int, error) {
	for len(m.cur) == 0 {
		if m.ended {
			return 0, io.EOF
		}
		b, ok := <-m.batches
		if !ok {
			b, m.ended = copyTrailer, true
		}
		m.cur = b
	}
	n := copy(p, m.cur)
	m.cur = m.cur[n:]
	return n, nil
}

// The header and trailer of COPY's binary format: a signature, no flags,
// no header extension; a field count of -1.
var (
	copyHeader  = []byte("PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00")
	copyTrailer = []byte{0xff, 0xff}
)

// copyMemoriesSQL copies memories in COPY's binary format, in the order
// of appendMemoryRow's fields.
var copyMemoriesSQL = "COPY memories (" + memoryColumns + ") FROM STDIN WITH (FORMAT binary)"

// appendMemoryRow appends m to b as a row of COPY's binary format: the
// values memoryArgs gives, with the types of migration 0001's columns.
func appendMemoryRow(b []byte, m *cairn.Memory) []byte {
	b = binary.BigEndian.AppendUint16(b, 27)
	b = appendText(b, m.ID)
	b = appendText(b, m.Project)
	b = appendText(b, string(m.Scope))
	b = appendText(b, m.Type)
	if m.Key == "" {
		b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
	} else {
		b = appendText(b, m.Key)
	}
	b = appendText(b, m.Title)
	b = appendText(b, m.Content)
	b = appendText(b, m.ContentHash)
	b = appendList(b, m.Tags)
	b = appendList(b, m.FileRefs)
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Confidence))
	b = appendText(b, string(m.Source))
	b = appendText(b, m.Agent)
	b = appendText(b, m.Hat)
	b = appendText(b, m.TaskID)
	b = appendText(b, m.SessionID)
	for _, t := range []time.Time{m.CreatedAt, m.UpdatedAt, m.LastUsedAt, m.VerifiedAt, m.ExpiresAt} {
		b = appendBigint(b, storesql.MS(t))
	}
	b = appendBigint(b, int64(m.UseCount))
	b = binary.BigEndian.AppendUint32(b, 1)
	if m.Pinned {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = appendText(b, m.SupersededBy)
	b = appendText(b, m.Partition)
	b = appendBigint(b, m.DocNum)
	return appendText(b, m.Flag)
}

func appendText(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// appendList appends the value of storesql.JoinList(xs).
func appendList(b []byte, xs []string) []byte {
	n := max(len(xs)-1, 0)
	for _, x := range xs {
		n += len(x)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for i, x := range xs {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, x...)
	}
	return b
}

func appendBigint(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// streamMemory adds m to the running COPY of the transaction, starting
// one if none runs.
func (t *Tx) streamMemory(ctx context.Context, m *cairn.Memory) error {
	if t.failed != nil {
		return t.failed
	}
	t.pending = appendMemoryRow(t.pending, m)
	if t.pendingRows++; t.pendingRows < streamBatch {
		return nil
	}
	return t.sendPending(ctx)
}

func (t *Tx) sendPending(ctx context.Context) error {
	if t.pendingRows == 0 {
		return nil
	}
	if t.stream == nil {
		s := &memoryStream{batches: make(chan []byte, 8), done: make(chan struct{}), cur: copyHeader}
		t.stream = s
		conn := t.raw.Conn().PgConn()
		// The COPY outlives this call: it must not end with the context
		// of one CreateMemory, only with the transaction's (see endStream).
		go func() {
			defer close(s.done)
			_, s.err = conn.CopyFrom(t.ctx, s, copyMemoriesSQL)
		}()
	}
	b := t.pending
	t.pending, t.pendingRows = make([]byte, 0, len(b)), 0
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
	if t.pendingRows > 0 {
		if t.stream == nil {
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
		return t.fail(bulkError(s.err))
	}
	return nil
}

// copyPending inserts the kept memories in one COPY (fewer than
// streamBatch: not worth a stream).
func (t *Tx) copyPending(ctx context.Context) error {
	data := append(append(append([]byte(nil), copyHeader...), t.pending...), copyTrailer...)
	t.pending, t.pendingRows = t.pending[:0], 0
	t.wrote = true
	if _, err := t.raw.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(data), copyMemoriesSQL); err != nil {
		return t.fail(bulkError(err))
	}
	return nil
}

// bulkError is the error of a failed COPY of memories.
func bulkError(err error) error {
	err = translate(err, "store memories")
	if cairn.ErrorCode(err) == cairn.ECONFLICT {
		err = cairn.WrapError(cairn.ECONFLICT, err, "memories stored in bulk conflict with memories written meanwhile (same id, or same project, type and key); nothing was written, run it again")
	}
	return err
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
