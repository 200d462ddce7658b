package wire

import (
	"math"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn/internal/jsonlite"
)

// AppendHits appends hits as encoding/json's Encoder writes them, byte
// for byte (a JSON array and a newline), without its reflection: a
// server writes one such answer per search. It reports false, and dst
// unchanged, for what encoding/json would refuse (a score that is not a
// finite number); the caller then lets encoding/json say so.
func AppendHits(dst []byte, hits []Hit) ([]byte, bool) {
	start := len(dst)
	dst = append(dst, '[')
	for i := range hits {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendHit(dst, &hits[i]); !ok {
			return dst[:start], false
		}
	}
	return append(dst, "]\n"...), true
}

func appendHit(dst []byte, h *Hit) ([]byte, bool) {
	ok := true
	num := func(key string, f float64) {
		dst = append(dst, key...)
		var good bool
		dst, good = appendFloat(dst, f)
		ok = ok && good
	}
	num(`{"score":`, h.Score)
	num(`,"relevance":`, h.Relevance)
	num(`,"salience":`, h.Salience)
	if e := h.Explain; e != nil {
		num(`,"explain":{"bm25":`, e.BM25)
		num(`,"coverage":`, e.Coverage)
		num(`,"match":`, e.Match)
		num(`,"strength":`, e.Strength)
		if e.Lent != 0 {
			num(`,"lent":`, e.Lent)
		}
		if e.LentBy != "" {
			dst = jsonlite.AppendString(append(dst, `,"lent_by":`...), e.LentBy)
		}
		num(`,"date_factor":`, e.DateFactor)
		num(`,"salience_factor":`, e.SalienceFactor)
		if e.LexicalRank != 0 {
			dst = strconv.AppendInt(append(dst, `,"lexical_rank":`...), int64(e.LexicalRank), 10)
		}
		if e.VectorRank != 0 {
			dst = strconv.AppendInt(append(dst, `,"vector_rank":`...), int64(e.VectorRank), 10)
		}
		if e.Similarity != 0 {
			num(`,"similarity":`, e.Similarity)
		}
		if e.Fused != 0 {
			num(`,"fused":`, e.Fused)
		}
		dst = append(dst, '}')
	}
	if m := h.Memory; m != nil {
		str := func(key, s string, omitEmpty bool) {
			if s != "" || !omitEmpty {
				dst = jsonlite.AppendString(append(dst, key...), s)
			}
		}
		tm := func(key string, t Time) {
			if !t.IsZero() {
				dst = append(dst, key...)
				dst = append(dst, '"')
				dst = time.Time(t).UTC().Truncate(time.Millisecond).AppendFormat(dst, time.RFC3339Nano)
				dst = append(dst, '"')
			}
		}
		str(`,"id":`, m.ID, false)
		str(`,"project":`, m.Project, true)
		str(`,"scope":`, m.Scope, true)
		str(`,"type":`, m.Type, false)
		str(`,"key":`, m.Key, true)
		str(`,"title":`, m.Title, false)
		str(`,"content":`, m.Content, false)
		dst = jsonlite.AppendStrings(append(dst, `,"tags":`...), m.Tags)
		dst = jsonlite.AppendStrings(append(dst, `,"file_refs":`...), m.FileRefs)
		num(`,"confidence":`, m.Confidence)
		str(`,"source":`, m.Source, true)
		str(`,"created_by_agent":`, string(m.CreatedByAgent), true)
		str(`,"created_by_hat":`, string(m.CreatedByHat), true)
		str(`,"created_by_task_id":`, string(m.CreatedByTaskID), true)
		str(`,"created_by_session_id":`, string(m.CreatedBySessionID), true)
		tm(`,"created_at":`, m.CreatedAt)
		tm(`,"updated_at":`, m.UpdatedAt)
		tm(`,"last_used_at":`, m.LastUsedAt)
		tm(`,"verified_at":`, m.VerifiedAt)
		tm(`,"expires_at":`, m.ExpiresAt)
		dst = strconv.AppendInt(append(dst, `,"use_count":`...), int64(m.UseCount), 10)
		if m.Pinned {
			dst = append(dst, `,"pinned":true`...)
		}
		str(`,"superseded_by":`, m.SupersededBy, true)
		str(`,"flag":`, m.Flag, true)
	}
	return append(dst, '}'), ok
}

// appendFloat appends f as encoding/json writes a float64; false for NaN
// and the infinities, which it refuses.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}
