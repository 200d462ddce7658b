package wire

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

var dayWeek = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)([dw])$`) })

// ParseDuration reads a time to live: Go's durations ("36h", "90m",
// "1h30m") and whole days or weeks ("90d", "2w"). It must be positive.
func ParseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if m := dayWeek().FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 100000 {
			return 0, fmt.Errorf("%q is too long a time", s)
		}
		d = time.Duration(n) * 24 * time.Hour
		if m[2] == "w" {
			d *= 7
		}
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q is not a duration: give e.g. 36h, 90m, 7d or 2w", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration", s)
	}
	return d, nil
}
