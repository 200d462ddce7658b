package index

// SplitWalks makes s hand the rest of a bounded search's walk in two
// parts as soon as it may (see Scorer.trySplit), whenever at least walk
// postings entries are left and whether or not a core is free, the other
// part started by start (which must call the function it is given, at
// once or later).
func SplitWalks(s *Scorer, walk int64, start func(other func())) {
	s.split = &splitter{walk: walk, start: start, idle: func() bool { return true }}
}
