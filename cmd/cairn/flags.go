package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/wire"
)

// listFlag is a comma-separated list; the flag may also be repeated.
type listFlag struct {
	vals []string
	set  bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(s string) error {
	l.set = true
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			l.vals = append(l.vals, x)
		}
	}
	return nil
}

// timeFlag is a time given as RFC 3339 or a date.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return wire.FormatTime(f.t)
}

func (f *timeFlag) Set(s string) error {
	t, err := wire.ParseTime(s)
	if err != nil {
		return err
	}
	f.t = t
	return nil
}

// optString records whether a string flag was given at all.
type optString struct {
	v   string
	set bool
}

func (o *optString) String() string { return o.v }
func (o *optString) Set(s string) error {
	o.v, o.set = s, true
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// readContent joins the positional arguments, or reads standard input when
// the only argument is "-" (at most maxTextInput bytes).
func (m *Main) readContent(ctx context.Context, args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		return readText(ctx, m.Stdin, "standard input")
	}
	return strings.Join(args, " "), nil
}

// optInt is an int flag that records whether it was given.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string { return strconv.Itoa(o.v) }
func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	o.v, o.set = v, true
	return nil
}

// confidenceFlag is a confidence given on the command line: a number from
// 0 to 1 (anything else is a usage error), and whether it was given.
type confidenceFlag struct {
	v   float64
	set bool
}

func (c *confidenceFlag) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.FormatFloat(c.v, 'f', -1, 64)
}

func (c *confidenceFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1 || v != v {
		return fmt.Errorf("%q is not a confidence from 0 to 1", s)
	}
	c.v, c.set = v, true
	return nil
}
