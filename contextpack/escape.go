package contextpack

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// lineBreak is the visible marker that stands for a line break of memory
// text in the markdown and xml formats (see the package comment).
const lineBreak = " ⏎ "

// clean returns s as valid UTF-8 with the characters a reader cannot see
// removed and line breaks normalised:
//
//   - invalid bytes become U+FFFD;
//   - "\r\n", "\r", "\v", "\f", U+0085, U+2028 and U+2029 become "\n";
//   - other C0 and C1 control characters except "\t", DEL, format
//     characters (Unicode Cf: zero-width characters, bidirectional
//     overrides, the invisible tag characters U+E0000–U+E007F) and the
//     supplementary variation selectors U+E0100–U+E01EF are dropped, because
//     they can hide text from a human reviewer that a model still reads;
//   - the noncharacters U+FFFE and U+FFFF, which XML does not allow, are
//     dropped;
//   - leading and trailing white space is trimmed.
//
// All three formats start from clean; it is also what items are shortened
// on, so an item is cut at the same place in every format.
func clean(s string) string {
	if isPlain(s) {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
		case r == '\n' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// control character: dropped
		case r == utf8.RuneError:
			b.WriteRune(utf8.RuneError) // n == 1 (invalid byte) or a real U+FFFD
		case r >= 0xad && (unicode.Is(unicode.Cf, r) || (r >= 0xE0100 && r <= 0xE01EF)):
			// invisible: dropped
		case r == 0xFFFE || r == 0xFFFF:
			// noncharacters that XML does not allow: dropped
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return strings.TrimSpace(b.String())
}

// isPlain reports whether s is printable ASCII and spaces only, which
// clean leaves alone apart from trimming.
func isPlain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// Eight bytes at a time: the high bit of a byte below 0x20 is
		// set in x-0x20 &^ x, of one above 0x7e in (x+1) | x (a carry
		// only leaves a byte that is already 0x80 or more).
		x := load8(s, i)
		if ((x-0x20*ones)&^x|(x+ones)|x)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// flatten turns cleaned text into one line of display text: every run of
// line breaks (with the white space around it) becomes lineBreak, every
// other run of white space one space, and fences are broken (see
// breakFences). The result never contains a line break, so it can never
// start a line of the block.
func flatten(s string) string {
	if isPlain(s) && !strings.Contains(s, "  ") && strings.TrimSpace(s) == s {
		return breakFences(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	space, brk := false, false
	for i := 0; i < len(s); {
		c := s[i]
		n := 1
		switch {
		case c == '\n':
			brk = true
		case c == ' ' || c == '\t':
			space = true
		case c >= utf8.RuneSelf:
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				space = true
				break
			}
			fallthrough
		default:
			if b.Len() > 0 {
				if brk {
					b.WriteString(lineBreak)
				} else if space {
					b.WriteByte(' ')
				}
			}
			space, brk = false, false
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return breakFences(b.String())
}

// breakFences replaces every run of three or more backticks with as many
// "ˋ" (U+02CB) and every run of three or more tildes with as many "˜"
// (U+02DC): look-alikes that no markdown reader, human or model, takes for
// a code fence. Single and double backticks (inline code) are kept.
func breakFences(s string) string {
	if !strings.Contains(s, "```") && !strings.Contains(s, "~~~") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c != '`' && c != '~' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == c {
			j++
		}
		if j-i < 3 {
			b.WriteString(s[i:j])
		} else {
			alike := "ˋ"
			if c == '~' {
				alike = "˜"
			}
			b.WriteString(strings.Repeat(alike, j-i))
		}
		i = j
	}
	return b.String()
}

// display is cleaned, flattened text: what the markdown and xml formats
// show of a memory string before their own escaping.
func display(s string) string { return flatten(clean(s)) }

// mdEscaper makes display text safe on a markdown item line: with no "<"
// or ">" no tag (such as </cairn-context>) can be formed.
var mdEscaper = strings.NewReplacer("<", "‹", ">", "›")

func mdEscape(s string) string {
	if !strings.ContainsAny(s, "<>") {
		return s
	}
	return mdEscaper.Replace(s)
}

// xmlEscaper escapes text for element content and double-quoted attributes.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlEscape(s string) string {
	if !strings.ContainsAny(s, `&<>"`) {
		return s
	}
	return xmlEscaper.Replace(s)
}

// textLines splits the free text of a section into display lines: cleaned,
// each line flattened, blank lines at either end dropped and runs of blank
// lines kept as one.
func textLines(s string) []string {
	raw := strings.Split(clean(s), "\n")
	lines := make([]string, 0, len(raw))
	for _, l := range raw {
		l = flatten(l)
		if l == "" && (len(lines) == 0 || lines[len(lines)-1] == "") {
			continue
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// titleCase turns a type name into a heading: "error_solution" becomes
// "Error Solution".
func titleCase(typ string) string {
	words := strings.FieldsFunc(typ, func(r rune) bool { return r == '_' || r == '-' || unicode.IsSpace(r) })
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// clip shortens one-line display text to at most max runes, ending with
// "…" when it cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// escaping is how a format escapes display text on an item line, as a
// table of what flattening and escaping do with each byte, so that
// writeDisplay and displaySize can do in one pass what flatten,
// breakFences and the format's escape function do in several.
type escaping struct {
	class [256]uint8
	repl  [utf8.RuneSelf]string // the replacement of a byteEscape byte
	size  [utf8.RuneSelf]size   // and its size
}

// The classes of bytes of escaping.class.
const (
	bytePlain  = iota // shown as it is
	byteSpace         // ' ' and '\t': white space
	byteBreak         // '\n'
	byteFence         // '`' and '~': a run of three or more is broken
	byteEscape        // replaced by the format's escape
	byteMulti         // the first byte of a rune beyond ASCII, or an invalid byte
)

// newEscaping returns the escaping that replaces each byte of pairs[2i]
// with pairs[2i+1].
func newEscaping(pairs ...string) *escaping {
	e := &escaping{}
	for c := utf8.RuneSelf; c < len(e.class); c++ {
		e.class[c] = byteMulti
	}
	e.class[' '], e.class['\t'], e.class['\n'] = byteSpace, byteSpace, byteBreak
	e.class['`'], e.class['~'] = byteFence, byteFence
	for i := 0; i < len(pairs); i += 2 {
		c := pairs[i][0]
		e.class[c], e.repl[c], e.size[c] = byteEscape, pairs[i+1], sizeOf(pairs[i+1])
	}
	return e
}

// mdEscaping is mdEscape's, xmlEscaping xmlEscape's: made when a block
// is first written, not by every process as it starts.
var (
	mdEscaping  = sync.OnceValue(func() *escaping { return newEscaping("<", "‹", ">", "›") })
	xmlEscaping = sync.OnceValue(func() *escaping { return newEscaping("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;") })
)

// The sizes of what flattening puts in display text.
var (
	lineBreakSize = sizeOf(lineBreak)
	alikeSize     = sizeOf("ˋ") // as "˜"
)

// fenceAlike is what breakFences puts for each character of a fence.
func fenceAlike(c byte) string {
	if c == '~' {
		return "˜"
	}
	return "ˋ"
}

// plainRun is the length of the run of bytes from s[i], a bytePlain byte,
// that is shown as it is: bytePlain bytes and single spaces between them.
func (e *escaping) plainRun(s string, i int) int {
	j := i + 1
	for j < len(s) {
		if e.class[s[j]] == bytePlain {
			j++
		} else if s[j] == ' ' && j+1 < len(s) && e.class[s[j+1]] == bytePlain {
			j += 2
		} else {
			break
		}
	}
	return j - i
}

// writeDisplay writes e's escape of flatten(s) to b: the same bytes as
// b.WriteString(mdEscape(flatten(s))) for mdEscaping and
// b.WriteString(xmlEscape(flatten(s))) for xmlEscaping, in one pass.
func writeDisplay(b *strings.Builder, s string, e *escaping) {
	d := displayWalk{b: b}
	d.walk(s, e)
}

// displaySize is the size of what writeDisplay writes, without writing it.
func displaySize(s string, e *escaping) size {
	z, _ := measureDisplay(s, e)
	return z
}

// measureDisplay is displaySize(s, e) and whether writeDisplay writes s
// itself.
func measureDisplay(s string, e *escaping) (z size, asIs bool) {
	var d displayWalk
	d.walk(s, e)
	return d.z, d.asIs
}

// displayWalk is one walk of writeDisplay: the size of what it writes (to b,
// when not nil) and whether that is the text walked itself.
type displayWalk struct {
	b    *strings.Builder // nil: measure only
	z    size
	asIs bool
}

// put writes one piece of display text of size z.
func (d *displayWalk) put(s string, z size) {
	if d.b != nil {
		d.b.WriteString(s)
	}
	d.z = d.z.add(z)
}

// walk puts e's escape of flatten(s).
func (d *displayWalk) walk(s string, e *escaping) {
	d.asIs = true
	sep, ws := 0, 0 // owed before the next visible rune (1 a space, 2 a line break), and where that white space began
	for i := 0; i < len(s); {
		c := s[i]
		k := e.class[c]
		n := 1
		var r rune
		switch k {
		case byteSpace, byteBreak:
			if sep == 0 {
				ws = i
			}
			if k == byteBreak {
				sep = 2
			} else {
				sep = max(sep, 1)
			}
			i++
			continue
		case byteMulti:
			if r, n = utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
				if sep == 0 {
					ws = i
				}
				sep = max(sep, 1)
				i += n
				continue
			}
		}
		if sep != 0 {
			// Shown as it is only if it is one space after visible text.
			d.asIs = d.asIs && d.z.runes > 0 && i-ws == 1 && s[ws] == ' '
			if d.z.runes > 0 {
				if sep == 2 {
					d.put(lineBreak, lineBreakSize)
				} else {
					d.put(" ", ascii(1))
				}
			}
		}
		sep = 0
		switch k {
		case bytePlain:
			n = e.plainRun(s, i)
			d.put(s[i:i+n], ascii(n))
		case byteFence:
			for i+n < len(s) && s[i+n] == c {
				n++
			}
			if n < 3 {
				d.put(s[i:i+n], ascii(n))
			} else {
				for range n {
					d.put(fenceAlike(c), alikeSize)
				}
				d.asIs = false
			}
		case byteEscape:
			d.put(e.repl[c], e.size[c])
			d.asIs = false
		default:
			d.put(s[i:i+n], size{runeQuarters(r, n), 1})
		}
		i += n
	}
	d.asIs = d.asIs && sep == 0
}

// writeShown writes the display text of s to b: s itself when asIs (as
// measureDisplay found), else what writeDisplay writes.
func writeShown(b *strings.Builder, s string, asIs bool, e *escaping) {
	if asIs {
		b.WriteString(s)
	} else {
		writeDisplay(b, s, e)
	}
}

// shows reports whether flatten(s) is not empty: whether s has a rune
// that is not white space.
func shows(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && (r < utf8.RuneSelf || !unicode.IsSpace(r)) {
			return true
		}
	}
	return false
}
