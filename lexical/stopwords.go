package lexical

import "strings"

// stopwordList is the NLTK English stopword list with apostrophes removed,
// plus the clitic fragments left behind when apostrophes split words.
const stopwordList = `a about above after again against ain all am an and any are aren arent as
at be because been before being below between both but by can couldn couldnt d did didn didnt
do does doesn doesnt doing don dont down during each few for from further had hadn hadnt has
hasn hasnt have haven havent having he her here hers herself him himself his how i if in into
is isn isnt it its itself just ll m ma me mightn more most mustn my myself needn no nor not now
o of off on once only or other our ours ourselves out over own re s same shan she should
shouldn shouldnt so some such t than that thatll the their theirs them themselves then there
these they this those through to too under until up ve very was wasn wasnt we were weren
werent what when where which while who whom why will with won wont wouldn wouldnt y you youd
youll youre youve your yours yourself yourselves`

// maxStopwordLen is the length of the longest stopword ("yourselves").
const maxStopwordLen = 10

// stopwords is an open-addressing hash set of the stopwords (faster than a
// map for these short keys).
var stopwords [stopTableSize]string

func makeStopwords() (t [stopTableSize]string) {
	for _, w := range strings.Fields(stopwordList) {
		i := stopHash(w) & (stopTableSize - 1)
		for t[i] != "" && t[i] != w {
			i = (i + 1) & (stopTableSize - 1)
		}
		t[i] = w
	}
	return t
}

const stopTableSize = 512 // power of two, well above 2x the list length

// stopHash hashes a word of at most maxStopwordLen bytes.
func stopHash[S string | []byte](w S) uint32 {
	h := uint32(len(w))
	for i := 0; i < len(w); i++ {
		h = h*0x9E3779B1 + uint32(w[i])
	}
	return h ^ h>>15
}

func isStop[S string | []byte](w S) bool {
	if len(w) == 0 || len(w) > maxStopwordLen {
		return false
	}
	for i := stopHash(w) & (stopTableSize - 1); stopwords[i] != ""; i = (i + 1) & (stopTableSize - 1) {
		if stopwords[i] == string(w) {
			return true
		}
	}
	return false
}

// IsStopword reports whether a lowercase word is an English stopword
// (dropped from index and queries).
//
// The list is NLTK's English stopwords with apostrophes removed ("dont",
// "youre", ...) plus the fragments that apostrophes split off ("s", "t",
// "ll", "ve", "re", "d", "m"). Matching is exact and case-sensitive: pass a
// lowercase word; stems are not stopwords unless they are on the list.
func IsStopword(w string) bool { ready(); return isStop(w) }
