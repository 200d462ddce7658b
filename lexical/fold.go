package lexical

// foldBase maps U+00C0..U+017F (Latin-1 Supplement letters and Latin
// Extended-A) to the lowercase ASCII letter they fold to. '.' marks a
// non-letter (× and ÷), '*' a letter that folds to two letters (see foldPair).
const foldBase = "" +
	"aaaaaa*ceeeeiiii" + // U+00C0 ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏ
	"dnooooo.ouuuuy**" + // U+00D0 ÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞß
	"aaaaaa*ceeeeiiii" + // U+00E0 àáâãäåæçèéêëìíîï
	"dnooooo.ouuuuy*y" + // U+00F0 ðñòóôõö÷øùúûüýþÿ
	"aaaaaaccccccccdd" + // U+0100 ĀāĂăĄąĆćĈĉĊċČčĎď
	"ddeeeeeeeeeegggg" + // U+0110 ĐđĒēĔĕĖėĘęĚěĜĝĞğ
	"gggghhhhiiiiiiii" + // U+0120 ĠġĢģĤĥĦħĨĩĪīĬĭĮį
	"ii**jjkkklllllll" + // U+0130 İıĲĳĴĵĶķĸĹĺĻļĽľĿ
	"lllnnnnnnnnnoooo" + // U+0140 ŀŁłŃńŅņŇňŉŊŋŌōŎŏ
	"oo**rrrrrrssssss" + // U+0150 ŐőŒœŔŕŖŗŘřŚśŜŝŞş
	"ssttttttuuuuuuuu" + // U+0160 ŠšŢţŤťŦŧŨũŪūŬŭŮů
	"uuuuwwyyyzzzzzzs" //   U+0170 ŰűŲųŴŵŶŷŸŹźŻżŽžſ

const (
	foldLo = 0x00C0
	foldHi = 0x0180
)

// foldPair returns the two-letter folding of r for the '*' entries of
// foldBase.
func foldPair(r rune) string {
	switch r {
	case 'Æ', 'æ':
		return "ae"
	case 'Þ', 'þ':
		return "th"
	case 'ß':
		return "ss"
	case 'Ĳ', 'ĳ':
		return "ij"
	case 'Œ', 'œ':
		return "oe"
	}
	return ""
}

// foldRune folds a non-ASCII letter or digit to lowercase ASCII when there is
// a folding (Latin diacritics, ligatures, fullwidth forms). It returns the
// folded text, whether r is uppercase (for camelCase splitting), and ok=false
// when r has no ASCII folding.
func foldRune(r rune) (s string, upper, ok bool) {
	switch {
	case r >= foldLo && r < foldHi:
		c := foldBase[r-foldLo]
		switch c {
		case '.':
			return "", false, false
		case '*':
			s = foldPair(r)
		default:
			s = asciiLetters[c-'a' : c-'a'+1]
		}
		// In these blocks uppercase letters are U+00C0..U+00DE (except ×),
		// and in Latin Extended-A the case pairs alternate; ß, ĸ, ŉ and ſ are
		// lowercase only.
		return s, isUpperLatin(r), true
	case r >= 0xFF10 && r <= 0xFF19: // fullwidth digits
		return asciiDigits[r-0xFF10 : r-0xFF10+1], false, true
	case r >= 0xFF21 && r <= 0xFF3A: // fullwidth uppercase
		return asciiLetters[r-0xFF21 : r-0xFF21+1], true, true
	case r >= 0xFF41 && r <= 0xFF5A: // fullwidth lowercase
		return asciiLetters[r-0xFF41 : r-0xFF41+1], false, true
	}
	return "", false, false
}

const (
	asciiLetters = "abcdefghijklmnopqrstuvwxyz"
	asciiDigits  = "0123456789"
)

// isUpperLatin reports whether r in U+00C0..U+017F is an uppercase letter.
func isUpperLatin(r rune) bool {
	switch {
	case r < 0x00DF:
		return r != 0x00D7
	case r < 0x0100:
		return false
	case r == 0x0130: // İ
		return true
	case r == 0x0138 || r == 0x0149 || r == 0x017F: // ĸ ŉ ſ
		return false
	case r == 0x0178: // Ÿ
		return true
	case r < 0x0138, r > 0x0149 && r < 0x0178:
		return r%2 == 0
	default: // U+0139..U+0148 and U+0179..U+017E: odd code points are uppercase
		return r%2 == 1
	}
}
