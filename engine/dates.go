package engine

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A query that names a date or a period ("on 13 October 2023", "in May
// 2023", "in June", "yesterday", "last week", "3 days ago") favours the
// memories created then: their relevance is multiplied by 1 + DateBoost.
// A memory is usually written when, or a little after, what it tells
// happened, so a period reaches a little past its end (datePeriod.slack).
// Relative dates are read against the query's clock (Query.Now). Periods
// of years ("in 2023", "last year", "4 years ago") are not used: nearly
// everything a project remembers was written in the last year or two, and
// what such a question asks about is seldom written in that year.

// period is a span of creation times [from, to).
type period struct{ from, to time.Time }

func (p period) has(t time.Time) bool { return !t.Before(p.from) && t.Before(p.to) }

// Slack past the end of a named period, by its length.
const (
	daySlack   = 2 * 24 * time.Hour
	weekSlack  = 3 * 24 * time.Hour
	monthSlack = 7 * 24 * time.Hour
)

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "few": 3,
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

// queryPeriods returns the periods that text names, read at now, and the
// phrases that name them (lower case), whose words a memory holds by when
// it was written rather than by what it says (see setStrengths).
func queryPeriods(text string, now time.Time) ([]period, []string) {
	low := strings.ToLower(text)
	if !mayNameDate(low) {
		return nil, nil
	}
	p := patterns()
	now = now.UTC()
	var out []period
	var phrases []string
	day := func(y int, m time.Month, d int) {
		if d < 1 || d > 31 || m < 1 || m > 12 {
			return
		}
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		if from.Month() != m {
			return // 31 June
		}
		out = append(out, period{from, from.AddDate(0, 0, 1).Add(daySlack)})
	}
	month := func(y int, m time.Month) {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		out = append(out, period{from, from.AddDate(0, 1, 0).Add(monthSlack)})
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
	for _, m := range p.dayMonth.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		d, _ := strconv.Atoi(m[1])
		mo := months[m[2]]
		y, ok := year(m[3])
		if !ok {
			y = latest(mo, d)
		}
		day(y, mo, d)
	}
	for _, m := range p.monthDay.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		mo := months[m[1]]
		d, _ := strconv.Atoi(m[2])
		y, ok := year(m[3])
		if !ok {
			y = latest(mo, d)
		}
		day(y, mo, d)
	}
	if len(out) == named { // a month alone, when no day of it was named
		for _, m := range p.monthYear.FindAllStringSubmatch(low, -1) {
			phrases = append(phrases, m[0])
			y, _ := year(m[2])
			if y > 0 {
				month(y, months[m[1]])
			}
		}
		if len(out) == named {
			for _, m := range p.inMonth.FindAllStringSubmatch(low, -1) {
				phrases = append(phrases, m[0])
				mo := months[m[1]]
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
			out = append(out, period{today, end})
		case "yesterday":
			out = append(out, period{today.AddDate(0, 0, -1), today.Add(daySlack)})
		case "the day before yesterday":
			out = append(out, period{today.AddDate(0, 0, -2), today.AddDate(0, 0, -1).Add(daySlack)})
		case "this week":
			out = append(out, period{today.AddDate(0, 0, -7), end})
		case "last week":
			out = append(out, period{today.AddDate(0, 0, -14), today.AddDate(0, 0, -7).Add(weekSlack)})
		case "this month":
			out = append(out, period{time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), end})
		case "last month":
			from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
			out = append(out, period{from, from.AddDate(0, 1, 0).Add(monthSlack)})
		}
	}
	for _, m := range p.ago.FindAllStringSubmatch(low, -1) {
		phrases = append(phrases, m[0])
		n, err := strconv.Atoi(m[1])
		if err != nil {
			n = numberWords[m[1]]
		}
		if n <= 0 {
			continue
		}
		if m[2] == "day" {
			from := today.AddDate(0, 0, -n)
			out = append(out, period{from, from.AddDate(0, 0, 1).Add(daySlack)})
		} else {
			from := today.AddDate(0, 0, -7*n)
			out = append(out, period{from.AddDate(0, 0, -3), from.AddDate(0, 0, 4).Add(weekSlack)})
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
	for name := range months {
		if len(name) > 3 && strings.Contains(low, name) {
			return true
		}
	}
	return false
}

// inPeriods reports whether t falls in one of ps.
func inPeriods(ps []period, t time.Time) bool {
	for _, p := range ps {
		if p.has(t) {
			return true
		}
	}
	return false
}
