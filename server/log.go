package server

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// TimedLog returns a writer to w that begins each line with its time in
// UTC (RFC 3339, to the second), as the hooks' lines in cairn.log begin:
// a server's log, read long after, says when each thing happened. now is
// the clock; nil: time.Now. It is safe for concurrent use; a line is
// stamped when its first byte is written.
func TimedLog(w io.Writer, now func() time.Time) io.Writer {
	if now == nil {
		now = time.Now
	}
	return &timedLog{w: w, now: now, atStart: true}
}

type timedLog struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	atStart bool // the next byte begins a line
	buf     []byte
}

func (l *timedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = l.buf[:0]
	for rest := p; len(rest) > 0; {
		if l.atStart {
			l.buf = l.now().UTC().AppendFormat(l.buf, time.RFC3339)
			l.buf = append(l.buf, ' ')
		}
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		l.buf = append(l.buf, line...)
		l.atStart = line[len(line)-1] == '\n'
		rest = rest[len(line):]
	}
	if _, err := l.w.Write(l.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
