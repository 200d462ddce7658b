package contextpack

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn"
)

// Decision states of items and free text.
const (
	pending = iota
	placed
	omitted
)

// item is an Item prepared for packing: cleaned, shortened and priced.
type item struct {
	in          *Item
	sec         *section
	pos         int    // index in the section's Items
	id          string // cleaned
	typ         string // cleaned (not flattened); defaultType when empty
	rank        int    // cairn.TypeRank(typ)
	title       string // cleaned, maybe shortened
	content     string // cleaned, maybe shortened (then ending with the pointer)
	titleAsIs   bool   // title is its own display text in the format (as itemSize found)
	contentAsIs bool   // and content is
	shortened   bool
	note        string  // annotation after the date (markdown): "3 days ago, 87% relevant"
	value       float64 // finite
	density     float64 // value per token
	piece       string  // the rendered item, when its format renders it to price it (json)
	size        size    // of the rendered item
	cost        cost    // the rendered item and an item separator
	state       int
}

// section is a Section prepared for packing.
type section struct {
	in        *Section
	order     int // position in rendering order
	head      string
	mid       string
	tail      string
	cost      cost // separator, head, mid and tail
	text      string
	textCost  cost
	textState int
	textWhy   string
	items     []*item
	placed    int            // placed items and text
	groups    map[string]int // placed items per type, when grouped
	laid      []*item        // the layout, when laidOK
	laidOK    bool
}

// index is a normalised Request.Index.
type index struct {
	lines  []indexLine // types with memories, in TypeOrder
	empty  []string    // types without, in TypeOrder
	months []string    // conversation months, newest first
	maxK   int         // the most recent titles of any line
}

type indexLine struct {
	typ    string
	count  int
	recent []indexEntry
}

type indexEntry struct{ title, date, by string }

// maxIndexTitle is the most runes of an index title.
const maxIndexTitle = 80

type renderer struct {
	req       *Request
	f         format
	budget    int
	maxChars  int
	maxItem   int
	frame     cost
	sepCost   cost       // of an item separator
	secs      []*section // in rendering order
	items     []*item
	groupHead map[string]groupHead // by type, as rendered so far
	ix        *index
	indexK    int            // recent titles shown per type; -1: index not shown
	indexWhy  string         // why the index is not shown, or was cut
	used      int            // tokens used
	shareUsed map[string]int // tokens used per share group
	omitted   []Omitted
	dropped   []*item // the items of omitted, in the same order
}

// newRenderer prepares req for packing. With base, a renderer of the same
// request without annotations, req's items are base's, annotated and
// priced anew, instead of being cleaned and shortened again.
func newRenderer(req *Request, base *renderer) *renderer {
	r := &renderer{
		req:       req,
		f:         formatFor(req.Format),
		budget:    cmp.Or(max(req.Budget, 0), DefaultBudget),
		maxChars:  max(req.MaxChars, 0),
		maxItem:   cmp.Or(max(req.MaxItemTokens, 0), DefaultMaxItemTokens),
		groupHead: map[string]groupHead{},
		shareUsed: map[string]int{},
		indexK:    -1,
	}
	// The frame is priced with the budget as the token count json shows:
	// the real count is no larger, so it has no more digits.
	r.frame = costOf(r.f.head(req.Project, r.budget)).add(costOf(r.f.sectionsEnd())).add(costOf(r.f.foot()))

	secs := make([]section, len(req.Sections))
	r.secs = make([]*section, len(secs))
	n := 0
	for i := range secs {
		secs[i].in = &req.Sections[i]
		r.secs[i] = &secs[i]
		n += len(req.Sections[i].Items)
	}
	items := make([]item, n)
	r.items = make([]*item, 0, n)
	slices.SortStableFunc(r.secs, func(a, b *section) int { return cmp.Compare(a.in.Priority, b.in.Priority) })
	r.sepCost = costOf(r.f.itemSep())
	sep := costOf(r.f.sectionSep())
	for o, s := range r.secs {
		s.order = o
		s.head, s.mid, s.tail = r.f.sectionHead(s.in), r.f.sectionMid(s.in), r.f.sectionTail(s.in)
		s.cost = sep.add(costOf(s.head)).add(costOf(s.mid)).add(costOf(s.tail))
		if lines := textLines(s.in.Text); len(lines) > 0 {
			s.text = r.f.text(lines)
			s.textCost = costOf(s.text)
		}
		if s.in.GroupByType {
			s.groups = map[string]int{}
		}
		start := len(r.items)
		for i := range s.in.Items {
			it := &items[len(r.items)]
			if base != nil {
				p := base.items[len(r.items)]
				*it = item{in: p.in, sec: s, pos: p.pos, id: p.id, typ: p.typ, rank: p.rank,
					title: p.title, content: p.content, titleAsIs: p.titleAsIs, contentAsIs: p.contentAsIs,
					shortened: p.shortened, value: p.value, size: p.size}
				r.annotate(it)
			} else {
				r.prepare(it, &s.in.Items[i], s)
				it.pos = i
			}
			r.items = append(r.items, it)
		}
		s.items = r.items[start:len(r.items):len(r.items)]
	}
	r.ix = newIndex(req.Index)
	if r.ix != nil {
		for _, mo := range req.Conversations {
			if mo = display(mo); mo != "" {
				r.ix.months = append(r.ix.months, mo)
			}
		}
		r.ix.maxK = max(r.ix.maxK, min(len(r.ix.months), 2))
	}
	return r
}

// prepare cleans, shortens and prices one item into it.
func (r *renderer) prepare(it *item, in *Item, sec *section) {
	*it = item{
		in:    in,
		sec:   sec,
		id:    clean(in.ID),
		typ:   clean(in.Type),
		value: finite(in.Value),
	}
	if it.typ == "" {
		it.typ = defaultType
	}
	it.rank = cairn.TypeRank(it.typ)
	title, content := clean(in.Title), clean(in.Content)
	if title != "" && cairn.TitleRepeatsContent(strings.TrimSuffix(title, "…"), content) {
		title = "" // the content says it: no text twice
	}
	it.title, it.content, it.shortened = shorten(title, content, it.id, r.maxItem)
	r.price(it)
}

// price annotates it if asked and prices it. It is rendered only when its
// format cannot price it otherwise; else when it is placed.
func (r *renderer) price(it *item) {
	if r.req.annotate {
		it.note = annotation(it.in, r.req.Now)
	}
	it.size = r.f.itemSize(it)
	r.setCost(it)
}

// annotate adds its note to an item that markdown, the only format with
// annotations, priced without one.
func (r *renderer) annotate(it *item) {
	it.note = annotation(it.in, r.req.Now)
	it.size = it.size.add(noteSize(it))
	r.setCost(it)
}

func (r *renderer) setCost(it *item) {
	it.cost = it.size.cost().add(r.sepCost)
	it.density = it.value / float64(max(it.cost.tokens, 1))
}

// shorten cuts title and content so that together with the pointer to the
// full text they cost at most limit tokens. A title longer than half the
// limit is cut to half of it; the content gets the rest.
//
// title and content are cleaned, so valid UTF-8, which costs at most 4/3
// of a quarter token a byte: most items are short enough not to count.
func shorten(title, content, id string, limit int) (string, string, bool) {
	lq := limit * 4
	if 4*(len(title)+len(content)) <= 3*lq {
		return title, content, false
	}
	tq := quarters(title)
	if tq+quarters(content) <= lq {
		return title, content, false
	}
	pointer := "…"
	if id != "" {
		pointer = "… (full text: cairn show " + id + ")"
	}
	if tq > lq/2 {
		title = cutWords(title, lq/2-quarters("…")) + "…"
		tq = quarters(title)
	}
	room := max(lq-tq-quarters(pointer), 0)
	return title, cutWords(content, room) + pointer, true
}

// cutWords returns the longest prefix of s costing at most q quarter
// tokens, shortened to the last white space if that keeps most of it.
func cutWords(s string, q int) string {
	p := cutQuarters(s, max(q, 0))
	if len(p) < len(s) {
		if i := strings.LastIndexFunc(p, unicode.IsSpace); i > len(p)*2/3 {
			p = p[:i]
		}
	}
	return strings.TrimRightFunc(p, unicode.IsSpace)
}

func newIndex(types []IndexType) *index {
	if len(types) == 0 {
		return nil
	}
	ix := &index{}
	sorted := slices.Clone(types)
	for i := range sorted {
		sorted[i].Type = display(sorted[i].Type)
		if sorted[i].Type == "" {
			sorted[i].Type = defaultType
		}
	}
	slices.SortStableFunc(sorted, func(a, b IndexType) int { return cairn.CompareTypes(a.Type, b.Type) })
	for _, t := range sorted {
		if t.Count <= 0 {
			ix.empty = append(ix.empty, t.Type)
			continue
		}
		l := indexLine{typ: t.Type, count: t.Count}
		for _, e := range t.Recent[:min(len(t.Recent), t.Count)] {
			l.recent = append(l.recent, indexEntry{title: clip(display(e.Title), maxIndexTitle), date: date(e.Date), by: clip(display(e.By), 40)})
		}
		ix.maxK = max(ix.maxK, len(l.recent))
		ix.lines = append(ix.lines, l)
	}
	return ix
}

// pack decides which items, free texts and how much of the index fit in
// the budget (see the package comment).
func (r *renderer) pack() {
	r.used = r.frame.tokens
	placedIDs := map[string]bool{}
	for start := 0; start < len(r.secs); {
		end := start + 1
		for end < len(r.secs) && r.secs[end].in.Priority == r.secs[start].in.Priority {
			end++
		}
		pool := r.secs[start:end]
		start = end

		for _, s := range pool {
			if s.text == "" {
				continue
			}
			c := s.textCost.tokens
			if s.placed == 0 {
				c += s.cost.tokens
			}
			if r.used+c <= r.budget {
				r.used += c
				s.textState = placed
				s.placed++
			} else {
				s.textState, s.textWhy = omitted, ReasonBudget
			}
		}

		var cands []*item
		for _, s := range pool {
			cands = append(cands, s.items...)
		}
		slices.SortStableFunc(cands, byDensity)
		for _, it := range cands {
			if it.id != "" && placedIDs[it.in.ID] {
				r.omit(it, ReasonDuplicate)
				continue
			}
			c := r.itemTokens(it)
			if sh := it.sec.in.Share; sh > 0 && r.shareUsed[it.sec.in.ShareGroup]+c > int(sh*float64(r.budget)) {
				r.omit(it, ReasonShare)
				continue
			}
			if r.used+c <= r.budget {
				r.used += c
				if it.sec.in.Share > 0 {
					r.shareUsed[it.sec.in.ShareGroup] += c
				}
				r.place(it)
				if it.id != "" {
					placedIDs[it.in.ID] = true
				}
			} else {
				r.omit(it, ReasonBudget)
			}
		}
	}

	if r.ix != nil {
		r.indexWhy = ReasonBudget
		for k := r.ix.maxK; k >= 0; k-- {
			if c := EstimateTokens(r.f.index(r.ix, k)); r.used+c <= r.budget {
				r.used += c
				r.indexK = k
				if k == r.ix.maxK {
					r.indexWhy = ""
				}
				break
			}
		}
	}
}

// byDensity orders candidates: more value per token first, then higher
// value, then smaller id, then input order.
func byDensity(a, b *item) int {
	if c := cmp.Compare(b.density, a.density); c != 0 {
		return c
	}
	if c := cmp.Compare(b.value, a.value); c != 0 {
		return c
	}
	if c := strings.Compare(a.in.ID, b.in.ID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.sec.order, b.sec.order); c != 0 {
		return c
	}
	return cmp.Compare(a.pos, b.pos)
}

// itemTokens is what placing it costs now: its own tokens, and its
// section's heading and type sub-heading if it would be the first there.
func (r *renderer) itemTokens(it *item) int {
	c := it.cost.tokens
	if it.sec.placed == 0 {
		c += it.sec.cost.tokens
	}
	if it.sec.groups != nil && it.sec.groups[it.typ] == 0 {
		c += r.group(it.typ).tokens
	}
	return c
}

func (r *renderer) group(typ string) cost {
	return r.groupHeadOf(typ).cost
}

// groupHead is a type's sub-heading in a grouped section.
type groupHead struct {
	text string
	cost cost
}

func (r *renderer) groupHeadOf(typ string) groupHead {
	h, ok := r.groupHead[typ]
	if !ok {
		h.text = r.f.group(typ)
		h.cost = costOf(h.text)
		r.groupHead[typ] = h
	}
	return h
}

func (r *renderer) place(it *item) {
	it.state = placed
	it.sec.placed++
	it.sec.laidOK = false
	if it.sec.groups != nil {
		it.sec.groups[it.typ]++
	}
}

func (r *renderer) omit(it *item, why string) {
	it.state = omitted
	r.omitted = append(r.omitted, Omitted{ID: it.in.ID, Section: it.sec.in.Kind, Tokens: it.cost.tokens, Reason: why})
	r.dropped = append(r.dropped, it)
}

// unplace takes a placed item out again, for MaxChars.
func (r *renderer) unplace(it *item) {
	it.sec.placed--
	it.sec.laidOK = false
	if it.sec.groups != nil {
		it.sec.groups[it.typ]--
	}
	r.omit(it, ReasonMaxChars)
}

// measure is the size of the current layout: the sum of the prices of its
// pieces, an upper bound of the rendered text.
func (r *renderer) measure() cost {
	c := r.frame
	if r.indexK >= 0 {
		c = c.add(costOf(r.f.index(r.ix, r.indexK)))
	}
	for _, s := range r.secs {
		if s.placed == 0 {
			continue
		}
		c = c.add(s.cost)
		if s.textState == placed {
			c = c.add(s.textCost)
		}
		for typ, n := range s.groups {
			if n > 0 {
				c = c.add(r.group(typ))
			}
		}
	}
	for _, it := range r.items {
		if it.state == placed {
			c = c.add(it.cost)
		}
	}
	return c
}

// fitMaxChars drops things until the text has at most MaxChars runes: the
// index's recent titles, then the index, then items from the lowest value,
// then free texts from the last section, until the layout's price fits.
func (r *renderer) fitMaxChars() {
	if r.maxChars == 0 {
		return
	}
	// The price is an upper bound of the text's runes, so the text fits
	// once its price does; when nothing is left the text is "" and fits.
	for r.measure().runes > r.maxChars && r.dropOne() {
	}
}

func (r *renderer) runes(text string) int { return costOf(text).runes }

// dropOne drops the next thing for MaxChars and reports whether there was
// one.
func (r *renderer) dropOne() bool {
	if r.indexK > 0 {
		r.indexK--
		r.indexWhy = ReasonMaxChars
		return true
	}
	if r.indexK == 0 {
		r.indexK = -1
		r.indexWhy = ReasonMaxChars
		return true
	}
	var low *item
	for _, it := range r.items {
		if it.state == placed && (low == nil || dropsBefore(it, low)) {
			low = it
		}
	}
	if low != nil {
		r.unplace(low)
		return true
	}
	for i := len(r.secs) - 1; i >= 0; i-- {
		if s := r.secs[i]; s.textState == placed {
			s.textState, s.textWhy = omitted, ReasonMaxChars
			s.placed--
			return true
		}
	}
	return false
}

// dropsBefore orders items for MaxChars: lower value first, then from
// later sections, then larger ids, then later in the section.
func dropsBefore(a, b *item) bool {
	if a.value != b.value {
		return a.value < b.value
	}
	if a.sec.order != b.sec.order {
		return a.sec.order > b.sec.order
	}
	if a.in.ID != b.in.ID {
		return a.in.ID > b.in.ID
	}
	return a.pos > b.pos
}

// layout returns the placed items of s in rendering order.
func (s *section) layout() []*item {
	if s.laidOK {
		return s.laid
	}
	var out []*item
	for _, it := range s.items {
		if it.state == placed {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b *item) int {
		if s.groups != nil { // by cairn.CompareTypes
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
			if c := strings.Compare(a.typ, b.typ); c != 0 {
				return c
			}
		}
		return cmp.Compare(b.value, a.value)
	})
	s.laid, s.laidOK = out, true
	return out
}

// empty reports whether nothing is placed.
func (r *renderer) empty() bool {
	if r.indexK >= 0 {
		return false
	}
	for _, s := range r.secs {
		if s.placed > 0 {
			return false
		}
	}
	return true
}

// text renders the current layout, "" when nothing is placed. json shows
// the text's own token count, found by iterating to a fixed point.
func (r *renderer) text() string {
	if r.empty() {
		return ""
	}
	t := r.assemble(0)
	if _, ok := r.f.(jsonFormat); !ok {
		return t
	}
	n := 0
	for range 8 {
		e := EstimateTokens(t)
		if e == n {
			break
		}
		n = e
		t = r.assemble(n)
	}
	return t
}

// assemble renders the current layout, with tokens as the size json
// shows. Items are rendered here, and only those placed.
func (r *renderer) assemble(tokens int) string {
	idx := ""
	if r.indexK >= 0 {
		idx = r.f.index(r.ix, r.indexK)
	}
	head, foot := r.f.head(r.req.Project, tokens), r.f.foot()
	// An item's bytes are at most its quarter tokens (see EstimateTokens).
	size := len(head) + len(idx) + len(foot) + 16
	for _, it := range r.items {
		if it.state == placed {
			size += 4 * it.cost.tokens
		}
	}
	for _, s := range r.secs {
		if s.placed > 0 {
			size += len(s.head) + len(s.mid) + len(s.tail) + len(s.text) + 8
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(head)
	if r.f.indexFirst() {
		b.WriteString(idx)
	}
	first := true
	for _, s := range r.secs {
		if s.placed == 0 {
			continue
		}
		if !first {
			b.WriteString(r.f.sectionSep())
		}
		first = false
		b.WriteString(s.head)
		if s.textState == placed {
			b.WriteString(s.text)
		}
		b.WriteString(s.mid)
		prev := ""
		for i, it := range s.layout() {
			if s.groups != nil && (i == 0 || it.typ != prev) {
				b.WriteString(r.groupHeadOf(it.typ).text)
			}
			prev = it.typ
			if i > 0 {
				b.WriteString(r.f.itemSep())
			}
			r.f.writeItem(&b, it)
		}
		b.WriteString(s.tail)
	}
	b.WriteString(r.f.sectionsEnd())
	if !r.f.indexFirst() {
		b.WriteString(idx)
	}
	b.WriteString(foot)
	return b.String()
}

// placedItems returns the placed items in rendering order.
func (r *renderer) placedItems() []*item {
	var out []*item
	for _, s := range r.secs {
		if s.placed > 0 {
			out = append(out, s.layout()...)
		}
	}
	return out
}

func (r *renderer) result() Result {
	var res Result
	res.Text = r.text()
	res.Tokens = EstimateTokens(res.Text)
	for _, it := range r.placedItems() {
		res.Placed = append(res.Placed, Placed{
			ID: it.in.ID, Section: it.sec.in.Kind, Tokens: it.cost.tokens,
			Shortened: it.shortened, Value: it.value, Reasons: it.in.Reasons,
		})
	}
	res.Omitted = r.omitted
	if r.req.Explain {
		res.Explain = r.explain(&res)
	}
	return res
}
