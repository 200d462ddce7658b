package engine

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// checkText rejects text that cairn cannot store faithfully or that is too
// large; field names the field for the error message.
func checkText(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return cairn.Errorf(cairn.EINVALID, "%s is not valid UTF-8; convert it to UTF-8 first", field)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return cairn.Errorf(cairn.EINVALID, "%s contains a NUL byte; binary data cannot be stored as a memory", field)
	}
	if len(s) > max {
		return sizeError(field, len(s), max)
	}
	return nil
}

// checkLine is checkText for one-line fields: no control characters.
func checkLine(field, s string, max int) error {
	if err := checkText(field, s, max); err != nil {
		return err
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return cairn.Errorf(cairn.EINVALID, "%s %q contains a control character", field, s)
		}
	}
	return nil
}

// normalizeName lowercases and trims a type or tag name and validates it.
func normalizeName(field, s string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if !cairn.ValidName(n) {
		return "", cairn.Errorf(cairn.EINVALID, "%s %q is not valid: use lowercase letters, digits and _ - : . / (at most %d bytes, starting with a letter or digit)", field, s, cairn.MaxNameBytes)
	}
	return n, nil
}

// normalizeTags validates, lowercases and de-duplicates tags, keeping order.
func normalizeTags(tags []string) ([]string, error) {
	if len(tags) > cairn.MaxTags {
		return nil, cairn.Errorf(cairn.EINVALID, "%d tags is more than the limit of %d", len(tags), cairn.MaxTags)
	}
	out := tags[:0:0]
	seen := map[string]bool{}
	for _, t := range tags {
		if strings.TrimSpace(t) == "" {
			continue
		}
		n, err := normalizeName("tag", t)
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

func normalizeRefs(refs []string) ([]string, error) {
	if len(refs) > cairn.MaxFileRefs {
		return nil, cairn.Errorf(cairn.EINVALID, "%d file references is more than the limit of %d", len(refs), cairn.MaxFileRefs)
	}
	out := refs[:0:0]
	seen := map[string]bool{}
	for _, r := range refs {
		r = strings.TrimSpace(r)
		if r == "" || seen[r] {
			continue
		}
		if err := checkLine("file reference", r, maxFileRefBytes); err != nil {
			return nil, err
		}
		seen[r] = true
		out = append(out, r)
	}
	return out, nil
}

// titleLimit is the longest title m may arrive with: MaxTitleBytes for
// one a person or agent gave (a mistake to report), four times that for
// one cairn or a model derived, which is cut after redaction.
func titleLimit(m *cairn.Memory) int {
	if m.Source == cairn.SourceExplicit || m.Source == "" {
		return cairn.MaxTitleBytes
	}
	return 4 * cairn.MaxTitleBytes
}

// cutTitle cuts s to at most max bytes at a rune boundary, ending in "…".
func cutTitle(s string, max int) string {
	const ell = "…"
	return strings.TrimSpace(cairn.CutBytes(s, max-len(ell))) + ell
}

// checkSizes refuses a memory whose text fields, tags or file references
// are over their limits, without reading the text.
func checkSizes(m *cairn.Memory) error {
	if len(m.Content) > cairn.MaxContentBytes {
		return sizeError("content", len(m.Content), cairn.MaxContentBytes)
	}
	if max := titleLimit(m); len(m.Title) > max {
		return sizeError("title", len(m.Title), max)
	}
	for _, f := range []struct{ name, v string }{
		{"key", m.Key}, {"type", m.Type}, {"agent", m.Agent}, {"hat", m.Hat}, {"task", m.TaskID}, {"session", m.SessionID},
	} {
		if len(f.v) > cairn.MaxNameBytes {
			return sizeError(f.name, len(f.v), cairn.MaxNameBytes)
		}
	}
	if len(m.Tags) > cairn.MaxTags {
		return cairn.Errorf(cairn.EINVALID, "%d tags is more than the limit of %d", len(m.Tags), cairn.MaxTags)
	}
	if len(m.FileRefs) > cairn.MaxFileRefs {
		return cairn.Errorf(cairn.EINVALID, "%d file references is more than the limit of %d", len(m.FileRefs), cairn.MaxFileRefs)
	}
	for _, t := range m.Tags {
		if len(t) > cairn.MaxNameBytes {
			return sizeError("tag", len(t), cairn.MaxNameBytes)
		}
	}
	for _, r := range m.FileRefs {
		if len(r) > maxFileRefBytes {
			return sizeError("file reference", len(r), maxFileRefBytes)
		}
	}
	return nil
}

func sizeError(field string, n, max int) error {
	return cairn.Errorf(cairn.EINVALID, "%s is %d bytes, more than the limit of %d; split it or store a summary", field, n, max)
}

// maxFileRefBytes bounds one file reference.
const maxFileRefBytes = 1024

// redactMemory applies the engine's redaction to every text a memory
// stores: content, title, key, type, tags, file references and the
// provenance fields. Type and tags are names of a restricted alphabet, so a
// marker "[REDACTED:kind]" in them becomes "redacted:kind". The id, the
// project and superseded_by are references, not text, and are kept.
func (e *Engine) redactMemory(m *cairn.Memory) {
	if e.redact == nil {
		return
	}
	for _, f := range []*string{&m.Content, &m.Title, &m.Key, &m.Agent, &m.Hat, &m.TaskID, &m.SessionID} {
		*f = e.redact(*f)
	}
	m.Type = e.redactName(m.Type)
	m.Tags = slices.Clone(m.Tags)
	for i, t := range m.Tags {
		m.Tags[i] = e.redactName(t)
	}
	m.FileRefs = slices.Clone(m.FileRefs)
	for i, r := range m.FileRefs {
		m.FileRefs[i] = e.redact(r)
	}
}

// redactName redacts a type or tag name, turning each "[REDACTED:kind]"
// marker into "redacted:kind", which a name may hold.
func (e *Engine) redactName(n string) string {
	r := e.redact(n)
	if r == n {
		return n
	}
	return strings.NewReplacer("[REDACTED:", "redacted:", "]", "").Replace(r)
}

// normalize validates m for storage and fills defaults. It does not touch
// the index fields or timestamps.
func (e *Engine) normalize(m *cairn.Memory) error {
	if !cairn.ValidProject(m.Project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid: give 1 to %d bytes of text without control characters", m.Project, cairn.MaxNameBytes)
	}
	if m.ID != "" {
		if err := checkLine("id", m.ID, cairn.MaxNameBytes); err != nil {
			return err
		}
		if strings.ContainsAny(m.ID, " \t") {
			return cairn.Errorf(cairn.EINVALID, "id %q contains white space", m.ID)
		}
	}
	if m.Type == "" {
		m.Type = cairn.DefaultType
	}
	var err error
	if m.Type, err = normalizeName("type", m.Type); err != nil {
		return err
	}
	switch m.Scope {
	case "":
		m.Scope = cairn.ScopeProject
	case cairn.ScopeProject, cairn.ScopeGlobal:
	default:
		return cairn.Errorf(cairn.EINVALID, "scope %q is not valid: use project or global", m.Scope)
	}
	switch m.Source {
	case "":
		m.Source = cairn.SourceExplicit
	case cairn.SourceExplicit, cairn.SourceAutomatic, cairn.SourceExtracted, cairn.SourceImported:
	default:
		return cairn.Errorf(cairn.EINVALID, "source %q is not valid: use explicit, automatic, extracted or imported", m.Source)
	}
	// Sizes first: a text over its limit is refused before redaction reads it.
	if err := checkSizes(m); err != nil {
		return err
	}
	e.redactMemory(m)
	if err := checkText("content", m.Content, cairn.MaxContentBytes); err != nil {
		return err
	}
	if strings.TrimSpace(m.Content) == "" {
		return cairn.Errorf(cairn.EINVALID, "content is empty; say what should be remembered")
	}
	m.Title = strings.TrimSpace(m.Title)
	if m.Title == "" {
		m.Title = cairn.TitleFromContent(m.Content)
	}
	if m.Source != cairn.SourceExplicit {
		// A title cairn or a model derived (from a long command, a
		// coloured error line, or grown by redaction's markers) is made
		// one line and cut, by runes and after redaction, rather than
		// losing the memory.
		m.Title = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, m.Title))
		if len(m.Title) > cairn.MaxTitleBytes {
			m.Title = cutTitle(m.Title, cairn.MaxTitleBytes)
		}
	}
	if err := checkLine("title", strings.ReplaceAll(m.Title, "\t", " "), cairn.MaxTitleBytes); err != nil {
		return err
	}
	m.Key = strings.TrimSpace(m.Key)
	for _, f := range []struct{ name, v string }{
		{"key", m.Key}, {"agent", m.Agent}, {"hat", m.Hat}, {"task", m.TaskID},
		{"session", m.SessionID}, {"superseded_by", m.SupersededBy},
	} {
		if err := checkLine(f.name, f.v, cairn.MaxNameBytes); err != nil {
			return err
		}
	}
	if m.Tags, err = normalizeTags(m.Tags); err != nil {
		return err
	}
	applyNamespaces(m)
	if m.FileRefs, err = normalizeRefs(m.FileRefs); err != nil {
		return err
	}
	if math.IsNaN(m.Confidence) || m.Confidence < 0 || m.Confidence > 1 {
		return cairn.Errorf(cairn.EINVALID, "confidence %v is not valid: give a number from 0 to 1", m.Confidence)
	}
	if m.Confidence == 0 {
		m.Confidence = cairn.InitialConfidence(e.policies.Of(m.Type), m.Source)
	}
	if m.UseCount < 0 {
		return cairn.Errorf(cairn.EINVALID, "use_count %d is negative", m.UseCount)
	}
	m.Flag = mergeFlags(m.Flag, instructionFlags(m.Title, m.Content))
	m.ContentHash = contentHash(m.Content)
	return nil
}

// normalizeNames is normalizeName of each name, in order; nil for none.
// checkFilterTags bounds the tags a filter names (every one must match)
// as a memory's: more can match nothing, and would make the query's
// expression deeper than SQLite takes.
func checkFilterTags(tags []string) error {
	if len(tags) > cairn.MaxTags {
		return cairn.Errorf(cairn.EINVALID, "a filter of %d tags is more than the limit of %d (a memory has at most %d)", len(tags), cairn.MaxTags, cairn.MaxTags)
	}
	return nil
}

func normalizeNames(field string, names []string) ([]string, error) {
	var out []string
	for _, s := range names {
		n, err := normalizeName(field, s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
