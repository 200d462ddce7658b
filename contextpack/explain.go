package contextpack

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// explain reports, for a human, what was placed and omitted and why. Ids,
// titles and reason names are display text, so a memory cannot send
// control sequences to the terminal that shows the report.
func (r *renderer) explain(res *Result) string {
	lines := strings.Split(r.report(res), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // tabwriter pads empty last cells
	}
	return strings.Join(lines, "\n")
}

func (r *renderer) report(res *Result) string {
	var b strings.Builder
	format := FormatMarkdown
	switch r.f.(type) {
	case xmlFormat:
		format = FormatXML
	case jsonFormat:
		format = FormatJSON
	}
	limit := "no character limit"
	if r.maxChars > 0 {
		limit = fmt.Sprintf("at most %d characters", r.maxChars)
	}
	fmt.Fprintf(&b, "format %s, budget %d tokens, %s, items shortened to %d tokens\n", format, r.budget, limit, r.maxItem)
	fmt.Fprintf(&b, "text: %d tokens, %d characters; %d items placed, %d omitted\n",
		res.Tokens, r.runes(res.Text), len(res.Placed), len(res.Omitted))

	b.WriteString("\nplaced, in rendering order:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  section\tid\ttokens\tvalue\ttitle\treasons")
	n := 0
	for _, s := range r.secs {
		if s.placed == 0 {
			continue
		}
		if s.textState == placed {
			fmt.Fprintf(tw, "  %s\t(free text)\t%d\t\t\t\n", display(s.in.Kind), s.textCost.tokens)
		}
		for _, it := range s.layout() {
			title := clip(display(it.in.Title), 40)
			if it.shortened {
				title += " (shortened)"
			}
			if f := itemFlag(it); f != "" {
				title += " (⚠ flagged: " + f + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", display(s.in.Kind), display(it.in.ID),
				it.cost.tokens, shortValue(it.value), title, reasons(it.in.Reasons))
			n++
		}
	}
	tw.Flush()
	if n == 0 {
		b.WriteString("  (no items)\n")
	}

	b.WriteString("\nomitted:\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  section\tid\ttokens\tvalue\ttitle\treason")
	n = 0
	for _, s := range r.secs {
		if s.textState == omitted {
			fmt.Fprintf(tw, "  %s\t(free text)\t%d\t\t\t%s\n", display(s.in.Kind), s.textCost.tokens, s.textWhy)
			n++
		}
	}
	for i, o := range res.Omitted {
		it := r.dropped[i]
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", display(o.Section), display(o.ID), o.Tokens,
			shortValue(it.value), clip(display(it.in.Title), 40), o.Reason)
		n++
	}
	tw.Flush()
	if n == 0 {
		b.WriteString("  (nothing)\n")
	}

	b.WriteString("\nindex: ")
	switch {
	case r.ix == nil:
		b.WriteString("none given\n")
	case r.indexK < 0:
		fmt.Fprintf(&b, "omitted (%s)\n", r.indexWhy)
	default:
		fmt.Fprintf(&b, "%d types, %d empty, up to %d of %d recent titles per type", len(r.ix.lines), len(r.ix.empty), r.indexK, r.ix.maxK)
		if r.indexWhy != "" {
			fmt.Fprintf(&b, " (cut for %s)", r.indexWhy)
		}
		b.WriteString("\n")
	}

	if res.Text == "" {
		b.WriteString("totals: nothing placed, empty text\n")
		return b.String()
	}
	var frame, idx, heads, text, items int
	frame = r.frame.tokens
	if r.indexK >= 0 {
		idx = EstimateTokens(r.f.index(r.ix, r.indexK))
	}
	for _, s := range r.secs {
		if s.placed == 0 {
			continue
		}
		heads += s.cost.tokens
		for typ, k := range s.groups {
			if k > 0 {
				heads += r.group(typ).tokens
			}
		}
		if s.textState == placed {
			text += s.textCost.tokens
		}
	}
	for _, p := range res.Placed {
		items += p.Tokens
	}
	fmt.Fprintf(&b, "totals: frame %d + index %d + headings %d + free text %d + items %d = %d tokens priced; the text is %d of %d tokens\n",
		frame, idx, heads, text, items, frame+idx+heads+text+items, res.Tokens, r.budget)
	return b.String()
}

func reasons(rs []Reason) string {
	parts := make([]string, len(rs))
	for i, rr := range rs {
		parts[i] = display(rr.Name) + " " + shortValue(rr.Value)
	}
	return strings.Join(parts, ", ")
}
