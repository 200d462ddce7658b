package lexical

import "strings"

// Word forms that stemming cannot join. Porter stemming maps "meeting" and
// "meets" to "meet" but leaves "met" alone, and it keeps British and
// American spellings apart ("colour", "color"). Before a word is stemmed,
// [baseForm] maps an irregular verb or noun form to its base form and a
// British spelling to the American one, in documents and queries alike,
// so that either form finds the other.
//
// The irregular forms are the common English strong verbs and irregular
// plurals, leaving out those that are more often another word in a
// project's text ("left", "bit", "lead", "spring", "saw", "found" stays:
// it is far more often the past of find than "to found"). Spelling rules
// apply to listed stems only, so that "hour", "tour", "advise" or
// "promise" are never touched.

// irregularList is "form base" pairs, one pair a line.
const irregularList = `
arose arise
arisen arise
ate eat
awoke awake
became become
began begin
begun begin
bent bend
bled bleed
blew blow
blown blow
bought buy
bred breed
broke break
broken break
brought bring
built build
burnt burn
caught catch
chose choose
chosen choose
clung cling
came come
crept creep
dealt deal
drank drink
drawn draw
drew draw
dreamt dream
driven drive
drove drive
drunk drink
dug dig
eaten eat
fallen fall
fed feed
fell fall
felt feel
fled flee
flew fly
flown fly
forbade forbid
forbidden forbid
forgave forgive
forgiven forgive
forgot forget
forgotten forget
fought fight
found find
froze freeze
frozen freeze
gave give
given give
gone go
got get
gotten get
grew grow
grown grow
held hold
hid hide
hidden hide
hung hang
knelt kneel
knew know
known know
laid lay
learnt learn
leapt leap
lent lend
lost lose
made make
meant mean
met meet
mistaken mistake
mistook mistake
overcame overcome
overtaken overtake
overtook overtake
overwritten overwrite
overwrote overwrite
paid pay
ran run
rang ring
rebuilt rebuild
rewritten rewrite
rewrote rewrite
ridden ride
risen rise
rode ride
rung ring
said say
sang sing
sank sink
sat sit
seen see
sent send
shaken shake
shook shake
shot shoot
shrank shrink
slept sleep
slid slide
sold sell
sought seek
spent spend
spilt spill
spoke speak
spoken speak
spun spin
stole steal
stolen steal
stood stand
struck strike
stuck stick
sung sing
sunk sink
swam swim
swept sweep
swore swear
sworn swear
swum swim
taken take
taught teach
thought think
threw throw
thrown throw
told tell
took take
tore tear
torn tear
undertook undertake
understood understand
undid undo
undone undo
went go
woke wake
woken wake
wore wear
worn wear
wept weep
withdrew withdraw
withdrawn withdraw
wrote write
written write
children child
feet foot
geese goose
indices index
knives knife
matrices matrix
men man
mice mouse
teeth tooth
vertices vertex
wives wife
women woman
criteria criterion
phenomena phenomenon
analyses analysis
theses thesis
hypotheses hypothesis
crises crisis
diagnoses diagnosis
`

// spellingList is British and American spellings of whole words that the
// rules below do not cover, "british american" a line.
const spellingList = `
grey gray
greys grays
catalogue catalog
catalogues catalogs
dialogue dialog
dialogues dialogs
analogue analog
programme program
programmes programs
tyre tire
tyres tires
aluminium aluminum
mould mold
moulds molds
plough plow
draught draft
ageing aging
judgement judgment
judgements judgments
acknowledgement acknowledgment
enrol enroll
enrolment enrollment
fulfil fulfill
fulfilment fulfillment
skilful skillful
sceptical skeptical
manoeuvre maneuver
licence license
licences licenses
defence defense
offence offense
pretence pretense
practise practice
practised practiced
practising practicing
pyjamas pajamas
cheque check
cheques checks
storey story
kerb curb
centre center
centres centers
centred centered
theatre theater
theatres theaters
metre meter
metres meters
litre liter
litres liters
fibre fiber
calibre caliber
spectre specter
sombre somber
meagre meager
mum mom
mums moms
`

// ourStems are words written with "our" in British English and "or" in
// American English; a word that starts with one of them takes the
// American spelling ("favourite" → "favorite").
var ourStems = []string{
	"armour", "behaviour", "candour", "clamour", "colour", "demeanour",
	"endeavour", "favour", "fervour", "flavour", "harbour", "honour",
	"humour", "labour", "neighbour", "odour", "parlour", "rigour", "rumour",
	"saviour", "savour", "splendour", "tumour", "valour", "vapour", "vigour",
}

// iseStems take -ise/-isation in British English and -ize/-ization in
// American English: stem + "is" + a suffix in iseSuffixes becomes stem +
// "iz" + suffix. Words that end in -ise in both ("advise", "promise",
// "exercise") are not stems here.
var iseStems = []string{
	"apolog", "author", "capital", "categor", "central", "character",
	"civil", "container", "critic", "custom", "deserial", "emphas",
	"final", "general", "global", "human", "initial", "local", "maxim",
	"memor", "minim", "mobil", "modern", "neutral", "normal", "optim",
	"organ", "parallel", "parameter", "penal", "priorit", "random", "real",
	"recogn", "serial", "special", "stabil", "standard", "summar",
	"synchron", "sanit", "symbol", "token", "util", "vector", "virtual",
	"visual",
}

var iseSuffixes = []string{"e", "ed", "es", "ing", "ation", "ations", "er", "ers", "able"}

// llStems double their final l before -ed, -ing, -er in British English
// ("travelled", "cancelling", "modeller"); American English does not.
var llStems = []string{
	"cancel", "channel", "counsel", "dial", "equal", "fuel", "funnel",
	"label", "level", "marvel", "model", "quarrel", "rival", "signal",
	"total", "travel", "tunnel",
}

var llSuffixes = []string{"ed", "ing", "er", "ers", "or", "ors"}

// yseStems end in -yse in British English and -yze in American English.
var yseStems = []string{"analy", "paraly", "cataly", "dialy"}

// forms maps a lowercase word to its base form or American spelling;
// filled by fillTables.
var forms map[string]string

func makeForms() map[string]string {
	m := map[string]string{}
	for _, list := range []string{irregularList, spellingList} {
		for _, line := range strings.Split(list, "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				m[f[0]] = f[1]
			}
		}
	}
	return m
}

// baseForm returns the word that p (lowercase ASCII letters) is indexed
// as before stemming: its base form for an irregular form, the American
// spelling for a British one, and p itself otherwise. It does not
// allocate when p is returned.
func baseForm(p []byte) []byte {
	if len(p) < 3 {
		return p
	}
	if f, ok := forms[string(p)]; ok {
		return []byte(f)
	}
	s := string(p) // does not escape: only compared below
	for _, st := range ourStems {
		if strings.HasPrefix(s, st) {
			return []byte(st[:len(st)-2] + "r" + s[len(st):])
		}
	}
	if i := strings.LastIndex(s, "is"); i > 0 {
		if stem := s[:i]; contains(iseStems, stem) && contains(iseSuffixes, s[i+2:]) {
			return []byte(stem + "iz" + s[i+2:])
		}
	}
	if i := strings.LastIndex(s, "ys"); i > 0 {
		if stem := s[:i+1]; contains(yseStems, stem) && contains(iseSuffixes, s[i+2:]) {
			return []byte(stem + "z" + s[i+2:])
		}
	}
	if i := strings.LastIndex(s, "ll"); i > 0 {
		if stem := s[:i+1]; contains(llStems, stem) && contains(llSuffixes, s[i+2:]) {
			return []byte(stem + s[i+2:])
		}
	}
	return p
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
