package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// query reads a request's query parameters; the first mistake is kept in
// err, so that a handler reads them all and checks once. The parameters
// are parsed once, at the first read: a search reads a dozen of them.
type query struct {
	r      *http.Request
	err    error
	values url.Values
}

// params is the request's query parameters, parsed on the first call.
func (q *query) params() url.Values {
	if q.values == nil {
		q.values = q.r.URL.Query()
	}
	return q.values
}

func (q *query) str(name string) string { return strings.TrimSpace(q.params().Get(name)) }

// list is a comma-separated parameter, also given more than once.
func (q *query) list(name string) []string {
	var out []string
	for _, v := range q.params()[name] {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
	}
	return out
}

func (q *query) bad(name, v, want string) {
	if q.err == nil {
		q.err = cairn.Errorf(cairn.EINVALID, "query parameter %s=%q is not valid: %s", name, v, want)
	}
}

// integer is an integer from min to max; def when absent.
func (q *query) integer(name string, def, min, max int) int {
	v := q.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		q.bad(name, v, "give a whole number from "+strconv.Itoa(min)+" to "+strconv.Itoa(max))
		return def
	}
	return n
}

func (q *query) number(name string) float64 {
	v := q.str(name)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		q.bad(name, v, "give a number from 0 to 1")
	}
	return f
}

// flag is a boolean: 1, true, 0, false; def when absent.
func (q *query) flag(name string, def bool) bool {
	v := q.str(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		q.bad(name, v, "give true or false (1 or 0)")
	}
	return b
}

func (q *query) time(name string) time.Time {
	v := q.str(name)
	t, err := wire.ParseTime(v)
	if err != nil {
		q.bad(name, v, "give RFC 3339 (2024-01-15T10:30:00Z) or a date (2024-01-15)")
	}
	return t
}

// timeAlias is the time of parameter name, or of alias, its other
// name (seed 000's after_date for after, say); both given is a mistake.
func (q *query) timeAlias(name, alias string) time.Time {
	t, a := q.time(name), q.time(alias)
	switch {
	case a.IsZero():
		return t
	case !t.IsZero():
		q.bad(alias, q.str(alias), "give "+name+" or "+alias+", not both")
	}
	return a
}

// oneOf is a parameter that must be one of choices (or absent: def).
func (q *query) oneOf(name, def string, choices ...string) string {
	v := q.str(name)
	if v == "" {
		return def
	}
	for _, c := range choices {
		if v == c {
			return v
		}
	}
	q.bad(name, v, "give one of "+strings.Join(choices, ", "))
	return def
}

// types checks type names.
func (q *query) types(name string) []string {
	ts := q.list(name)
	for _, t := range ts {
		if !cairn.ValidName(t) {
			q.bad(name, t, "a type is lowercase letters, digits and _ - : . /")
		}
	}
	return ts
}
