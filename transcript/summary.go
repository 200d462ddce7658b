package transcript

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// SessionKey is the key of a session's summary memory.
func SessionKey(sessionID string) string { return "session:" + sessionID }

// The parts of a session summary, as Finish writes them and Resume reads
// them back.
const (
	headAsked     = "**Asked:** "
	headAlso      = "**Also asked:**"
	headChanged   = "**Changed:**"
	headElsewhere = "**Also changed, outside the project:** "
	headFixed     = "**Failed, then passed:**"
	headFailing   = "**Still failing:**"
	headEnded     = "**Ended:** "
	// headOldFiles is the files' heading of summaries written before.
	headOldFiles = "**Files changed:**"
)

// asked is what the summary says the session asked, and the requests it
// lists after it.
func (x *Extractor) asked() (string, []string) {
	// "continue", "yes", "do it": no request that says anything.
	reqs := slices.DeleteFunc(slices.Clone(x.st.Requests), func(r string) bool { return contentWords(r) < 2 })
	switch {
	case x.st.Carried != "":
		// A conversation that goes on from an earlier one (the summary of
		// a compaction came before any request): what was asked before,
		// then what was asked here.
		return cut("(continued) "+x.st.Carried, maxAsked), reqs
	case len(reqs) == 0 && x.st.Slash != "":
		return "ran " + x.st.Slash, nil
	case len(reqs) == 0 && len(x.st.Requests) > 0:
		return x.st.Requests[0], nil
	case len(reqs) == 0:
		return "", nil
	}
	// A short first request ("commit and push") says little: what came
	// next says what the session was about.
	a, i := reqs[0], 1
	for contentWords(a) < 5 && i < len(reqs) && i < 4 {
		a += "; then: " + reqs[i]
		i++
	}
	return cut(a, maxAsked), reqs[i:]
}

// Finish returns the summary of the session so far, or nil when it has
// nothing worth keeping: no request that says anything (only a slash
// command, a warm-up, a catch-up, "continue"), no file changed, no
// command that failed. A transcript of a sub-agent only (every line a
// sidechain) makes no summary of its own: it extends its parent's when
// Resume was given one. It has the key SessionKey(id) when the session id
// is known, so that a later summary of the same session replaces it, and
// the time of the session's first line as its creation time.
func (x *Extractor) Finish() *cairn.Memory {
	if !x.st.Main && !x.restored {
		return nil
	}
	asked, also := x.asked()
	failing := x.failing()
	if contentWords(asked) < 2 && len(x.st.Files) == 0 && len(x.st.Fixed) == 0 && len(failing) == 0 {
		return nil
	}
	title := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1 // a title is one plain line
		}
		return r
	}, strings.Join(strings.Fields(asked), " "))
	title = shorten(title, maxTitleText)
	if title == "" {
		title = "changed " + listFiles(x.st.Files, 3)
	}
	var sb strings.Builder
	if asked != "" {
		sb.WriteString(headAsked + asked + "\n")
	}
	// The lists are bounded so that any session, however many files it
	// touched, has a summary that fits in a memory.
	// "continue", "yes": no request worth listing.
	also = slices.DeleteFunc(slices.Clone(also), func(r string) bool { return contentWords(r) < 2 })
	if len(also) > 0 {
		sb.WriteString("\n" + headAlso + "\n")
		for _, r := range also[:min(len(also), 5)] {
			sb.WriteString("- " + cut(r, 160) + "\n")
		}
	}
	if n := len(x.st.Files); n > 0 {
		fmt.Fprintf(&sb, "\n%s %s\n", headChanged, plural(n, "file"))
		for _, f := range x.st.Files[:min(n, maxListed)] {
			sb.WriteString("- " + cut(f, maxSummaryItem) + "\n")
		}
		if n > maxListed {
			fmt.Fprintf(&sb, "(and %d more files)\n", n-maxListed)
		}
	}
	if len(x.st.Elsewhere) > 0 {
		sb.WriteString("\n" + headElsewhere + strings.Join(x.st.Elsewhere, ", ") + "\n")
	}
	if len(x.st.Fixed) > 0 {
		sb.WriteString("\n" + headFixed + "\n")
		for _, f := range x.st.Fixed {
			sb.WriteString("- " + f + "\n")
		}
	}
	if len(failing) > 0 {
		sb.WriteString("\n" + headFailing + "\n")
		for _, f := range failing {
			sb.WriteString("- " + f + "\n")
		}
	}
	if x.st.Ended != "" {
		sb.WriteString("\n" + headEnded + x.st.Ended + "\n")
	}
	var refs []string
	for _, f := range x.st.Files {
		if len(refs) == cairn.MaxFileRefs {
			break
		}
		if len(f) <= maxSummaryItem {
			refs = append(refs, f)
		}
	}
	m := &cairn.Memory{
		Project:   x.Project,
		Type:      "session",
		Title:     "Session: " + title,
		Content:   cut(strings.TrimSuffix(sb.String(), "\n"), cairn.MaxContentBytes),
		FileRefs:  refs,
		Source:    cairn.SourceAutomatic,
		SessionID: x.sessionID,
	}
	if t, err := time.Parse(time.RFC3339Nano, x.st.Started); err == nil {
		m.CreatedAt = t
	}
	if t, err := time.Parse(time.RFC3339Nano, x.st.Last); err == nil {
		m.UpdatedAt = t
	}
	if x.sessionID != "" {
		m.Key = SessionKey(x.sessionID)
	}
	return m
}

// failing lists the commands that failed and have not passed since.
func (x *Extractor) failing() []string {
	var out []string
	keys := make([]string, 0, len(x.st.Open))
	for k := range x.st.Open {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return x.st.Open[a].At.Compare(x.st.Open[b].At) })
	for _, k := range keys {
		ep := x.st.Open[k]
		if len(ep.Errors) == 0 {
			continue // failed without saying why: nothing to learn from
		}
		out = append(out, "`"+cut(ep.Command, 160)+"` — "+cut(ep.Errors[0], 200))
		if len(out) == maxFailing {
			break
		}
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Resume continues a session whose earlier entries were summarised in
// prev (a summary made by Finish, now or by an earlier version): its
// requests, files and fixes are kept. It does nothing when the state was
// restored with RestorePending, which holds all of it.
func (x *Extractor) Resume(prev *cairn.Memory) {
	if prev == nil || x.restored {
		return
	}
	x.restored = true
	if !prev.CreatedAt.IsZero() && x.st.Started == "" {
		x.st.Started = prev.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	var reqs []string
	sect := ""
	for _, l := range strings.Split(prev.Content, "\n") {
		switch {
		case strings.HasPrefix(l, headAsked):
			a := strings.TrimPrefix(l, headAsked)
			if c, ok := strings.CutPrefix(a, "(continued) "); ok {
				x.st.Carried = c
			} else if s, ok := strings.CutPrefix(a, "ran /"); ok && !strings.Contains(s, " ") {
				x.st.Slash = "/" + s
			} else {
				a, _, _ = strings.Cut(a, " (continuing: ")
				reqs = append(reqs, strings.Split(a, "; then: ")...)
			}
			sect = ""
		case strings.HasPrefix(l, headAlso):
			sect = "also"
		case strings.HasPrefix(l, headChanged), strings.HasPrefix(l, headOldFiles):
			sect = "files"
		case strings.HasPrefix(l, headElsewhere):
			for _, f := range strings.Split(strings.TrimPrefix(l, headElsewhere), ", ") {
				if f != "" && !slices.Contains(x.st.Elsewhere, f) {
					x.st.Elsewhere = append(x.st.Elsewhere, f)
				}
			}
			sect = ""
		case strings.HasPrefix(l, headFixed):
			sect = "fixed"
		case strings.HasPrefix(l, headEnded):
			if x.st.Ended == "" {
				x.st.Ended = strings.TrimPrefix(l, headEnded)
			}
			sect = ""
		case strings.HasPrefix(l, "**"):
			sect = ""
		case strings.HasPrefix(l, "- "):
			item := strings.TrimPrefix(l, "- ")
			switch sect {
			case "also":
				reqs = append(reqs, item)
			case "files":
				if !slices.Contains(x.st.Files, item) {
					x.st.Files = append(x.st.Files, item)
				}
			case "fixed":
				if !slices.Contains(x.st.Fixed, item) {
					x.st.Fixed = append(x.st.Fixed, item)
				}
			}
		}
	}
	// The requests read this time came after the earlier ones.
	for _, r := range x.st.Requests {
		if !slices.Contains(reqs, r) {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) > maxRequests {
		reqs = reqs[:maxRequests]
	}
	x.st.Requests = reqs
}

// seenRE reads the "**Seen:**" line of a fix memory.
var seenRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\*\*Seen:\*\* in (\d+) sessions?, first (\d{4}-\d{2}-\d{2})`)
})

// MergeFix folds a fix of an error met again (next, made by Add) into the
// memory that holds the same error already (old): the new fix and error
// lines replace the old ones, the old fix is kept as the one before when
// it differs, and the count of sessions that met the error grows when
// next comes from another session. It returns the memory to store (with
// old's key, so that it replaces old) and whether the error came back
// from another session.
func MergeFix(old, next *cairn.Memory) (*cairn.Memory, bool) {
	m := *next
	m.Key = old.Key
	m.Tags = slices.Clone(next.Tags)
	for _, t := range old.Tags {
		if strings.HasPrefix(t, "error:") && !slices.Contains(m.Tags, t) && len(m.Tags) < cairn.MaxTags {
			m.Tags = append(m.Tags, t)
		}
	}
	sessions, first := 1, old.CreatedAt
	if s := seenRE().FindStringSubmatch(old.Content); s != nil {
		sessions, _ = strconv.Atoi(s[1])
		if t, err := time.Parse("2006-01-02", s[2]); err == nil {
			first = t
		}
	}
	again := old.SessionID != "" && old.SessionID != next.SessionID
	if again {
		sessions++
	}
	m.CreatedAt = old.CreatedAt
	body := strings.TrimRight(seenRE().ReplaceAllString(next.Content, ""), "\n")
	oldFix := fixLine(old.Content)
	if f := fixLine(next.Content); oldFix != "" && oldFix != f {
		body += "\n**Fixed before:** " + oldFix
	}
	if sessions > 1 {
		last := next.CreatedAt
		if last.IsZero() {
			last = time.Now().UTC()
		}
		body += fmt.Sprintf("\n**Seen:** in %d sessions, first %s, last %s", sessions, first.UTC().Format("2006-01-02"),
			last.UTC().Format("2006-01-02"))
	}
	m.Content = body
	return &m, again
}

// fixLine is the text of a fix memory's "**Fix:**" line.
func fixLine(content string) string {
	for _, l := range strings.Split(content, "\n") {
		if f, ok := strings.CutPrefix(l, "**Fix:** "); ok {
			return f
		}
	}
	return ""
}

// WorthAsking says why the agent should be asked, once, to write what a
// later session should know, and "" when it need not be: it is asked when
// the session had something worth keeping (a command failed and then
// passed, or the user corrected the agent) and the agent recorded nothing
// itself (no MEMORY: line, no <learning>, no call of the remember tool),
// and it was not asked before in this session.
func (x *Extractor) WorthAsking(recurring bool) string {
	if x.st.Asked || x.st.Recorded {
		return ""
	}
	var why []string
	if recurring {
		why = append(why, "an error came back that an earlier session had met")
	}
	if x.st.Fixes > 0 {
		why = append(why, "a command failed and then passed")
	}
	if x.st.Corrected {
		why = append(why, "the user corrected you")
	}
	return strings.Join(why, ", and ")
}

// MarkAsked records that the agent was asked: WorthAsking says "" from
// now on, in this run and (through Pending) in later runs of the session.
func (x *Extractor) MarkAsked() { x.st.Asked = true }
