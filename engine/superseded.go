package engine

// belowReplacements moves each hit whose memory was superseded by another
// hit's memory to just below that hit, so that a search never ranks a
// replaced memory above the one that replaced it (a decision above its
// revision, say), whatever their words and salience; its score is lowered
// to its replacement's, so that scores still fall down the list. Other
// hits keep their order. A replacement that is not among hits changes
// nothing: the replaced memory keeps its place, and its superseded_by
// names what replaced it.
func belowReplacements(hits []hit) []hit {
	if len(hits) < 2 {
		return hits
	}
	replaced := false
	for i := range hits {
		if hits[i].Memory.SupersededBy != "" {
			replaced = true
			break
		}
	}
	if !replaced {
		return hits
	}
	// Supersede chains have no loops (the engine refuses them), so each
	// move puts a hit below one that was below it, and moves end: at most
	// one per pair of hits.
	for moves := 0; moves < len(hits)*len(hits); moves++ {
		i, j := misplaced(hits)
		if i < 0 {
			break
		}
		h := hits[i]
		copy(hits[i:j], hits[i+1:j+1])
		h.Score = min(h.Score, hits[j-1].Score)
		hits[j] = h
	}
	return hits
}

// misplaced returns the first hit i above its replacement j (i < j), or
// -1.
func misplaced(hits []hit) (int, int) {
	for i := range hits {
		by := hits[i].Memory.SupersededBy
		if by == "" {
			continue
		}
		for j := i + 1; j < len(hits); j++ {
			if hits[j].Memory.ID == by {
				return i, j
			}
		}
	}
	return -1, -1
}
