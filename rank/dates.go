package rank

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A query that names a date or a period ("on 13 October 2023", "in May
// 2023", "in June", "yesterday", "last week", "3 days ago") favours the
// memories created then: the engine multiplies their relevance by 1 +
// its ranking's DateBoost.
// A memory is usually written when, or a little after, what it tells
// happened, so a period reaches a little past its end (datePeriod.slack).
// Relative dates are read against the query's clock (Query.Now). Periods
// of years ("in 2023", "last year", "4 years ago") are not used: nearly
// everything a project remembers was written in the last year or two, and
// what such a question asks about is seldom written in that year.

// Period is a span of creation times [from, to).
type Period struct{ from, to time.Time }

// Has reports whether t falls in p.
func (p Period) Has(t time.Time) bool { return !t.Before(p.from) && t.Before(p.to) }

// Slack past the end of a named period, by its length.
const (
	daySlack   = 2 * 24 * time.Hour
	weekSlack  = 3 * 24 * time.Hour
	monthSlack = 7 * 24 * time.Hour
)

// monthOf is the month a name or abbreviation in lower case stands for, 0
// for none. (A switch, not a map: nothing to build when a process starts.)
func monthOf(name string) time.Month {
	switch name {
	case "january", "jan":
		return time.January
	case "february", "feb":
		return time.February
	case "march", "mar":
		return time.March
	case "april", "apr":
		return time.April
	case "may":
		return time.May
	case "june", "jun":
		return time.June
	case "july", "jul":
		return time.July
	case "august", "aug":
		return time.August
	case "september", "sep", "sept":
		return time.September
	case "october", "oct":
		return time.October
	case "november", "nov":
		return time.November
	case "december", "dec":
		return time.December
	}
	return 0
}

// longMonthNames are the month names mayNameDate looks for: those longer
// than three letters (a shorter one is also part of many words).
var longMonthNames = [...]string{"january", "february", "march", "april", "june", "july", "august",
	"september", "sept", "october", "november", "december"}

// numberWord is the count a word of "… days ago" stands for, 0 for none.
func numberWord(w string) int {
	switch w {
	case "a", "an", "one":
		return 1
	case "two", "a couple of":
		return 2
	case "three", "a few", "few":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	}
	return 0
}

type datePatterns struct {
	iso, dayMonth, monthDay, monthYear, inMonth, relative, ago *regexp.Regexp
}

// patterns are compiled on first use, not at start-up.
var patterns = sync.OnceValue(func() *datePatterns {
	const mon = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`
	const full = `(january|february|march|april|may|june|july|august|september|october|november|december)`
	return &datePatterns{
		iso:       regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`),
		dayMonth:  regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? ` + mon + `(?:,? (\d{4}))?\b`),
		monthDay:  regexp.MustCompile(`\b` + mon + ` (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4})\b)?`),
		monthYear: regexp.MustCompile(`\b` + full + `,? (\d{4})\b`),
		inMonth:   regexp.MustCompile(`\b(?:in|during|since|early|late|mid|of|this|last) ` + full + `\b`),
		relative:  regexp.MustCompile(`\b(today|yesterday|the day before yesterday|this week|last week|this month|last month)\b`),
		ago:       regexp.MustCompile(`\b(\d{1,2}|a couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten) (day|week)s? ago\b`),
	}
})

// QueryPeriods returns the periods that text names, read at now, and the
// phrases that name them (lower case), whose words a memory holds by when
// it was written rather than by what it says (the engine's strength).
func QueryPeriods(text string, now time.Time) ([]Period, []string) {
	low := strings.ToLower(text)
	if !mayNameDate(low) {
		return nil, nil
	}
	p := patterns()
	now = now.UTC()
	var out []Period
	var phrases []string
	day := func(y int, m time.Month, d int) {
		if d < 1 || d > 31 || m < 1 || m > 12 {
			return
		}
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		if from.Month() != m {
			return // 31 June
		}
		out = append(out, Period{from, from.AddDate(0, 0, 1).Add(daySlack)})
	}
	month := func(y int, m time.Month) {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		out = append(out, Period{from, from.AddDate(0, 1, 0).Add(monthSlack)})
	}
	// latest is the year of the latest such month or day not after now.
	latest := func(m time.Month, d int) int {
		y := now.Year()
		if time.Date(y, m, max(d, 1), 0, 0, 0, 0, time.UTC).After(now) {
			y--
		}
		return y
	}
	year := func(s string) (int, bool) {
		y, err := strconv.Atoi(s)
		return y, err == nil && y >= 1970 && y <= 2200
	}
	for _, m := range p.iso.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		day(y, time.Month(mo), d)
	}
	named := len(out)
	// "3rd of May 2025" and "May 3rd, 2025": the day's and the month's
	// groups differ, the year is group 3; without it, the latest such day.
	for _, f := range [...]struct {
		re        *regexp.Regexp
		dayG, moG int
	}{{p.dayMonth, 1, 2}, {p.monthDay, 2, 1}} {
		for _, m := range f.re.FindAllStringSubmatch(low, -1) {
			phrases = append(phrases, m[0])
			d, _ := strconv.Atoi(m[f.dayG])
			mo := monthOf(m[f.moG])
			y, ok := year(m[3])
			if !ok {
				y = latest(mo, d)
			}
			day(y, mo, d)
		}
	}
	if len(out) == named { // a month alone, when no day of it was named
		for _, m := range p.monthYear.FindAllStringSubmatch(low, -1) {
			phrases = append(phrases, m[0])
			y, _ := year(m[2])
			if y > 0 {
				month(y, monthOf(m[1]))
			}
		}
		if len(out) == named {
			for _, m := range p.inMonth.FindAllStringSubmatch(low, -1) {
				phrases = append(phrases, m[0])
				mo := monthOf(m[1])
				month(latest(mo, 1), mo)
			}
		}
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	end := now.Add(time.Minute) // "today" reaches now, and a little past for clock skew
	for _, m := range p.relative.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		switch m[1] {
		case "today":
			out = append(out, Period{today, end})
		case "yesterday":
			out = append(out, Period{today.AddDate(0, 0, -1), today.Add(daySlack)})
		case "the day before yesterday":
			out = append(out, Period{today.AddDate(0, 0, -2), today.AddDate(0, 0, -1).Add(daySlack)})
		case "this week":
			out = append(out, Period{today.AddDate(0, 0, -7), end})
		case "last week":
			out = append(out, Period{today.AddDate(0, 0, -14), today.AddDate(0, 0, -7).Add(weekSlack)})
		case "this month":
			out = append(out, Period{time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), end})
		case "last month":
			month(now.Year(), now.Month()-1) // time.Date takes month 0 as the December before
		}
	}
	for _, m := range p.ago.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		n, err := strconv.Atoi(m[1])
		if err != nil {
			n = numberWord(m[1])
		}
		if n <= 0 {
			continue
		}
		if m[2] == "day" {
			from := today.AddDate(0, 0, -n)
			out = append(out, Period{from, from.AddDate(0, 0, 1).Add(daySlack)})
		} else {
			from := today.AddDate(0, 0, -7*n)
			out = append(out, Period{from.AddDate(0, 0, -3), from.AddDate(0, 0, 4).Add(weekSlack)})
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, phrases
}

// mayNameDate is a quick test that spares most queries the patterns.
func mayNameDate(low string) bool {
	if strings.Contains(low, "ago") || strings.Contains(low, "today") ||
		strings.Contains(low, "yesterday") || strings.Contains(low, "week") || strings.Contains(low, "month") {
		return true
	}
	for i := 0; i < len(low); i++ {
		if low[i] >= '0' && low[i] <= '9' {
			return true
		}
	}
	for _, name := range longMonthNames {
		if strings.Contains(low, name) {
			return true
		}
	}
	return false
}

// InPeriods reports whether t falls in one of ps.
func InPeriods(ps []Period, t time.Time) bool {
	for _, p := range ps {
		if p.Has(t) {
			return true
		}
	}
	return false
}
