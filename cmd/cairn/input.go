package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn"
)

// maxTextInput is the most a command reads as one text (the content of
// add, edit, converse and task given as -, and what capture reads): 16 MiB.
const maxTextInput = 16 << 20

// inputReader reads a command's input: it stops as soon as the command's
// context is cancelled (Ctrl-C, SIGTERM), and fails once more than limit
// bytes were read, so that an endless input (/dev/zero, a stream that
// never closes) cannot keep a command running.
type inputReader struct {
	ctx  context.Context
	r    io.Reader
	left int64 // bytes that may still be read, plus one
	max  int64
	what string
}

func newInput(ctx context.Context, r io.Reader, limit int64, what string) *inputReader {
	return &inputReader{ctx: ctx, r: r, left: limit + 1, max: limit, what: what}
}

func (in *inputReader) Read(p []byte) (int, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	if in.left <= 0 {
		return 0, cairn.Errorf(cairn.EINVALID, "%s is larger than %s, the most cairn reads", in.what, byteSize(in.max))
	}
	if int64(len(p)) > in.left {
		p = p[:in.left]
	}
	n, err := in.readOrCancel(p)
	in.left -= int64(n)
	if in.left <= 0 && err == nil {
		err = cairn.Errorf(cairn.EINVALID, "%s is larger than %s, the most cairn reads", in.what, byteSize(in.max))
	}
	return n, err
}

// readOrCancel reads into p, or returns the context's error as soon as it
// is cancelled while the read waits (a terminal, a pipe nobody writes to).
// The read runs on its own goroutine into its own buffer, so that one
// given up on never writes into p afterwards; it ends with the process.
func (in *inputReader) readOrCancel(p []byte) (int, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b := make([]byte, len(p))
		n, err := in.r.Read(b)
		done <- result{b[:n], err}
	}()
	select {
	case r := <-done:
		return copy(p, r.b), r.err
	case <-in.ctx.Done():
		return 0, in.ctx.Err()
	}
}

// byteSize writes n bytes in the largest binary unit that divides it.
func byteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// readText reads all of r as one text of at most maxTextInput bytes.
func readText(ctx context.Context, r io.Reader, what string) (string, error) {
	b, err := io.ReadAll(newInput(ctx, r, maxTextInput, what))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if cairn.ErrorCode(err) == cairn.EINVALID {
			return "", err
		}
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	return string(b), nil
}

// readFileText reads a named file as one text of at most maxTextInput
// bytes.
func readFileText(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", path, err)
	}
	defer f.Close()
	return readText(ctx, f, path)
}

// isTerminal reports whether r is a terminal (a character device): a
// command that reads standard input when given no file does so only when
// something was piped or redirected to it.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
