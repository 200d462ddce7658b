package wire

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/jsonlite"
)

// Hits is a list of search hits in their JSON form, as the HTTP API sends
// them. Its UnmarshalJSON gives what encoding/json gives for a []Hit, but
// reads the form cairn writes without reflection: a client that runs once
// per command would otherwise spend more on encoding/json's setup than
// on the search.
type Hits []Hit

// UnmarshalJSON decodes b as encoding/json decodes a []Hit, with the same
// value and the same errors.
func (h *Hits) UnmarshalJSON(b []byte) error {
	if utf8.Valid(b) {
		if hs, ok := decodeHitsFast(b); ok {
			*h = hs
			return nil
		}
	}
	return json.Unmarshal(b, (*[]Hit)(h))
}

// The keys of a hit besides its memory's (fieldOf), numbered after them.
const (
	hScore = fFlag + 1 + iota
	hRelevance
	hSalience
	hExplain
)

// decodeHitsFast decodes an array of hits written the way cairn writes
// them (see decodeFast); false for anything else.
func decodeHitsFast(b []byte) (Hits, bool) {
	d := jsonlite.NewReader(b)
	out := Hits{}
	ok := d.Array(func() bool {
		h, ok := hitFast(d)
		out = append(out, h)
		return ok
	})
	return out, ok && d.End()
}

func hitFast(d *jsonlite.Reader) (Hit, bool) {
	var h Hit
	var seen uint32
	ok := d.Object(func(key []byte) bool {
		var f int
		switch string(key) {
		case "score":
			f = hScore
		case "relevance":
			f = hRelevance
		case "salience":
			f = hSalience
		case "explain":
			f = hExplain
		default:
			f = fieldOf(key)
		}
		if f < 0 || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		switch f {
		case hScore:
			return float(d, &h.Score)
		case hRelevance:
			return float(d, &h.Relevance)
		case hSalience:
			return float(d, &h.Salience)
		case hExplain:
			if d.Null() {
				h.Explain = nil
				return true
			}
			h.Explain = &HitExplain{}
			return explainFast(d, h.Explain)
		}
		if h.Memory == nil {
			// encoding/json allocates an embedded pointer for any of its
			// keys, null or not.
			h.Memory = &Memory{}
		}
		return memoryField(d, h.Memory, f)
	})
	return h, ok
}

func explainFast(d *jsonlite.Reader, e *HitExplain) bool {
	var seen uint16
	return d.Object(func(key []byte) bool {
		var f int
		var v *float64
		var n *int
		switch string(key) {
		case "bm25":
			f, v = 0, &e.BM25
		case "coverage":
			f, v = 1, &e.Coverage
		case "match":
			f, v = 2, &e.Match
		case "strength":
			f, v = 3, &e.Strength
		case "lent":
			f, v = 4, &e.Lent
		case "date_factor":
			f, v = 5, &e.DateFactor
		case "salience_factor":
			f, v = 6, &e.SalienceFactor
		case "similarity":
			f, v = 7, &e.Similarity
		case "fused":
			f, v = 8, &e.Fused
		case "lexical_rank":
			f, n = 9, &e.LexicalRank
		case "vector_rank":
			f, n = 10, &e.VectorRank
		case "lent_by":
			f = 11
		default:
			return false
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		switch {
		case d.Null():
			return true
		case v != nil:
			x, ok := d.Float()
			*v = x
			return ok
		case n != nil:
			x, ok := d.Int()
			*n = x
			return ok
		}
		s, ok := d.String()
		e.LentBy = s
		return ok
	})
}

// float decodes a number or null into *v.
func float(d *jsonlite.Reader, v *float64) bool {
	if d.Null() {
		return true
	}
	x, ok := d.Float()
	*v = x
	return ok
}
