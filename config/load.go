package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"github.com/cairn-dev/cairn"
)

// UserFile is the user's configuration file under dir, the user's
// configuration folder ($XDG_CONFIG_HOME, else ~/.config).
func UserFile(dir string) string { return filepath.Join(dir, "cairn", "cairn.toml") }

// ProjectFile is the project's configuration file under dir, the project's
// top-level folder.
func ProjectFile(dir string) string { return filepath.Join(dir, ".cairn", "cairn.toml") }

// Source says where the value of one key came from.
type Source struct {
	Key   string `json:"key"`   // context.budget, modes.eco.search_limit, keywords."quick task".dynamic_count
	Value string `json:"value"` // in TOML syntax
	// From is "default", a file and line ("/p/.cairn/cairn.toml:12"), the
	// origin given to Set ("flag --budget"), or for a value set by the
	// active mode, "mode NAME (where the mode's value came from)".
	From string `json:"from"`
}

// Loaded is a configuration and where each of its values came from. Get
// one from Load. It is not safe for concurrent use; Config may be read
// concurrently once no one calls Set or changes it.
type Loaded struct {
	Config  *Config  // the effective configuration
	Sources []Source // one per key of Config, sorted by key; nil from Effective
	Files   []string // the files read, lowest precedence first

	raw       *Config           // the layers merged, before tiers are reconciled and the mode applied
	origin    map[string]origin // of raw's keys, and of map entries created by files or Set
	noSources bool              // Effective: leave Sources nil
}

type origin struct {
	from string
	rank int
	line int // in a file; breaks ties within one
}

// Ranks of origins: a higher rank wins.
const (
	rankDefault = iota
	rankUser
	rankProject
	rankOverride
)

var defaultOrigin = origin{from: "default"}

// Error is a mistake in the configuration.
type Error struct {
	Where   string // "file:line", the file, or the origin given to Set
	Key     string // the key, when the mistake is in its value
	Problem string
}

func (e *Error) Error() string {
	var parts []string
	for _, p := range []string{e.Where, e.Key, e.Problem} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// invalid wraps a configuration mistake as an EINVALID cairn error whose
// message is the mistake's.
func invalid(e *Error) error { return &cairn.Error{Code: cairn.EINVALID, Err: e} }

func errAt(o origin, key, problem string) error {
	return invalid(&Error{Where: o.from, Key: key, Problem: problem})
}

// Load reads the user's file under userConfigDir and the project's file
// under projectDir over the defaults, then applies context.mode. A missing
// file is fine; an empty folder name skips that file. Errors are EINVALID
// *cairn.Error values wrapping an *Error (errors.As finds it), except that a
// file that exists but cannot be read is reported with the read error.
func Load(projectDir, userConfigDir string) (*Loaded, error) {
	return load(projectDir, userConfigDir, true)
}

// Effective is Load without Sources (left nil): the effective
// configuration alone, for a command that applies it and does not show
// where each value came from. Rendering every key's source costs more than
// reading the files, a noticeable part of a short command's run.
func Effective(projectDir, userConfigDir string) (*Loaded, error) {
	return load(projectDir, userConfigDir, false)
}

func load(projectDir, userConfigDir string, sources bool) (*Loaded, error) {
	l := &Loaded{raw: Default(), origin: map[string]origin{}, noSources: !sources}
	type file struct {
		path string
		rank int
	}
	var files []file
	if userConfigDir != "" {
		files = append(files, file{UserFile(userConfigDir), rankUser})
	}
	if projectDir != "" {
		files = append(files, file{ProjectFile(projectDir), rankProject})
	}
	for _, f := range files {
		data, err := readLimited(f.path, MaxFileSize)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if errors.Is(err, errTooLarge) {
			return nil, invalid(&Error{Where: f.path, Problem: fmt.Sprintf("the file is larger than %d KiB, more than any configuration needs; cairn does not read it", MaxFileSize>>10)})
		}
		if err != nil {
			return nil, cairn.WrapError(cairn.EINVALID, err, "cannot read the configuration")
		}
		if err := l.readFile(f.path, string(data), f.rank); err != nil {
			return nil, err
		}
		l.Files = append(l.Files, f.path)
	}
	if err := l.resolve(); err != nil {
		return nil, err
	}
	return l, nil
}

// MaxFileSize is the largest configuration file cairn reads: the example
// with every key is about 10 KiB, and a file from a repository should not
// cost a hook more than its budget to parse.
const MaxFileSize = 128 << 10

var errTooLarge = errors.New("file too large")

// readLimited reads the file at path, or fails with errTooLarge when it
// holds more than limit bytes; anything but a regular file (a FIFO, a
// device) is refused unread.
func readLimited(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path) // before opening: opening a FIFO waits for a writer
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// Set overrides one key, as a command-line flag does: key as Sources names
// it ("context.budget", "modes.eco.search_limit"), value as text (lists
// comma-separated), from as Sources should show it ("flag --budget"). It
// validates like a file and recomputes Config, so call it before changing
// Config in code. On error nothing changes.
func (l *Loaded) Set(key, value, from string) error {
	path, ok := parseKey(key)
	if !ok {
		return invalid(&Error{Where: from, Problem: fmt.Sprintf("malformed key %q", key)})
	}
	lf, ok := lookup(path)
	if !ok {
		return invalid(&Error{Where: from, Problem: unknownKey(l.raw, path)})
	}
	if k, p := checkEntry(path); p != "" {
		return invalid(&Error{Where: from, Key: k, Problem: p})
	}
	if len(path) == 3 && path[0] == "lifecycle" && path[2] != "tier" && !lf.exists(l.raw) {
		return invalid(&Error{Where: from, Key: keyString(path[:2]...), Problem: unknownType(l.raw, path[1]) + "; set its tier first to add it"})
	}
	v, p := fromString(lf.kind, value)
	if p == "" {
		p = lf.validate(v)
	}
	if p != "" {
		return invalid(&Error{Where: from, Key: lf.key, Problem: p})
	}
	raw, orig := l.raw.Clone(), maps.Clone(l.origin)
	o := origin{from: from, rank: rankOverride}
	if lf.create != nil && lf.create(l.raw) {
		l.origin[lf.entry] = o
	}
	lf.set(l.raw, v)
	l.origin[lf.key] = o
	if err := l.resolve(); err != nil {
		l.raw, l.origin = raw, orig
		return err
	}
	return nil
}

// checkEntry checks the name of the map entry in path (a type, mode, hat
// or keyword phrase) and returns the entry's key and the problem, or "".
func checkEntry(path []string) (key, problem string) {
	if len(path) < 2 {
		return "", ""
	}
	key = keyString(path[:2]...)
	switch {
	case path[0] == "lifecycle" || path[0] == "modes":
		if !cairn.ValidName(path[1]) {
			problem = fmt.Sprintf("%q is not a %s name (lowercase letters, digits and _ - : . /)", path[1], entryNoun[path[0]])
		}
	case path[0] == "keywords":
		if cairn.NormalizePhrase(path[1]) == "" {
			problem = "the phrase is empty"
		}
	case path[0] == "scoring" && path[1] == "hat_relations" && len(path) == 3:
		key, problem = keyString(path...), checkHatName(path[2])
	}
	return key, problem
}

func unknownType(c *Config, name string) string {
	msg := fmt.Sprintf("unknown type %q", name)
	if s := nearest(name, slices.Sorted(maps.Keys(c.Lifecycle))); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

func unknownKey(c *Config, path []string) string {
	msg := fmt.Sprintf("unknown key %q", keyString(path...))
	if s := suggest(c, path); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

// readFile merges one file into l.raw.
func (l *Loaded) readFile(path, src string, rank int) error {
	var doc map[string]any
	if _, err := toml.Decode(src, &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return invalid(&Error{Where: fmt.Sprintf("%s:%d", path, pe.Position.Line), Problem: "invalid TOML: " + pe.Message})
		}
		return invalid(&Error{Where: path, Problem: "invalid TOML: " + err.Error()})
	}
	w := &walker{c: l.raw, lines: keyLines(src)}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		w.walk([]string{k}, doc[k])
	}
	// Report the first mistake in the file, and apply in file order so that
	// keywords keep their order.
	slices.SortStableFunc(w.ops, func(a, b assignment) int { return a.line - b.line })
	where := func(line int) string {
		if line == 0 {
			return path
		}
		return fmt.Sprintf("%s:%d", path, line)
	}
	for _, op := range w.ops {
		if op.problem != "" {
			return invalid(&Error{Where: where(op.line), Key: op.key, Problem: op.problem})
		}
	}
	for _, op := range w.ops {
		o := origin{from: where(op.line), rank: rank, line: op.line}
		if op.leaf.create != nil && op.leaf.create(l.raw) {
			l.origin[op.leaf.entry] = o
		}
		if op.value != nil {
			op.leaf.set(l.raw, op.value)
			l.origin[op.leaf.key] = o
		}
	}
	return nil
}

// assignment is one key a file sets (or, with a nil value, a map entry it
// creates), or a mistake.
type assignment struct {
	line    int
	leaf    leaf
	value   any
	key     string // of a mistake
	problem string
}

// walker turns a decoded file into assignments.
type walker struct {
	c     *Config // the configuration so far, for the entries that exist
	lines map[string]int
	ops   []assignment
}

func (w *walker) fail(linePath []string, key, format string, args ...any) {
	w.ops = append(w.ops, assignment{line: lineOf(w.lines, linePath), key: key, problem: fmt.Sprintf(format, args...)})
}

func (w *walker) walk(path []string, v any) {
	if len(path) == 1 && path[0] == "keywords" {
		w.keywords(v)
		return
	}
	m, isMap := v.(map[string]any)
	if lf, ok := lookup(path); ok {
		if k, p := checkEntry(path); p != "" {
			w.fail(path, k, "%s", p)
			return
		}
		w.assign(path, lf, v)
		return
	}
	if isTable(path) {
		if !isMap {
			w.fail(path, keyString(path...), "expected a table, found %s", describe(v))
			return
		}
		if len(path) == 2 && (path[0] == "lifecycle" || path[0] == "modes") && !w.entry(path, m) {
			return
		}
	} else if !isMap || len(m) == 0 {
		w.fail(path, "", "%s", unknownKey(w.c, path))
		return
	}
	// A table of the layout, or an unknown one whose keys are reported.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.walk(append(slices.Clone(path), k), m[k])
	}
}

// entry checks a [lifecycle.NAME] or [modes.NAME] table and records the
// entry's creation.
func (w *walker) entry(path []string, m map[string]any) bool {
	key, p := checkEntry(path)
	if p != "" {
		w.fail(path, key, "%s", p)
		return false
	}
	var lf leaf
	if path[0] == "lifecycle" {
		lf, _ = lifecycleLeaf(path[1], "tier")
		if _, hasTier := m["tier"]; !hasTier && !lf.exists(w.c) {
			w.fail(path, key, "%s; to add a type, give it a tier", unknownType(w.c, path[1]))
			return false
		}
	} else {
		lf, _ = modeLeaf(path[1], "budget")
	}
	w.ops = append(w.ops, assignment{line: lineOf(w.lines, path), leaf: lf})
	return true
}

// assign converts and checks the value of one key.
func (w *walker) assign(linePath []string, lf leaf, v any) {
	val, p := fromTOML(lf.kind, v)
	if p == "" {
		p = lf.validate(val)
	}
	if p != "" {
		w.fail(linePath, lf.key, "%s", p)
		return
	}
	w.ops = append(w.ops, assignment{line: lineOf(w.lines, linePath), leaf: lf, value: val})
}

// keywords reads the [[keywords]] array: each element is identified by its
// phrase.
func (w *walker) keywords(v any) {
	var elems []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		elems = x
	case []any:
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				w.fail([]string{"keywords"}, "keywords", "expected an array of tables ([[keywords]]), found %s", describe(v))
				return
			}
			elems = append(elems, m)
		}
	default:
		w.fail([]string{"keywords"}, "keywords", "expected an array of tables ([[keywords]]), found %s", describe(v))
		return
	}
	seen := map[string]int{}
	for i, m := range elems {
		at := []string{"keywords", indexPart(i)}
		name := "keywords" + indexPart(i)
		raw, ok := m["phrase"]
		if !ok {
			w.fail(at, name, "missing phrase")
			continue
		}
		phrasePath := append(slices.Clone(at), "phrase")
		s, ok := raw.(string)
		if !ok {
			w.fail(phrasePath, name+".phrase", "expected a string, found %s", describe(raw))
			continue
		}
		phrase := cairn.NormalizePhrase(s)
		if phrase == "" {
			w.fail(phrasePath, name+".phrase", "the phrase is empty")
			continue
		}
		line := lineOf(w.lines, phrasePath)
		if first, dup := seen[phrase]; dup {
			w.fail(phrasePath, name+".phrase", "%q is already defined at line %d", phrase, first)
			continue
		}
		seen[phrase] = line
		create, _ := keywordLeaf(phrase, "mode")
		w.ops = append(w.ops, assignment{line: line, leaf: create})
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k == "phrase" {
				continue
			}
			path := []string{"keywords", phrase, k}
			linePath := append(slices.Clone(at), k)
			lf, ok := lookup(path)
			if !ok {
				w.fail(linePath, "", "%s", unknownKey(w.c, path))
				continue
			}
			w.assign(linePath, lf, m[k])
		}
	}
}

// resolve computes Config and Sources from the merged layers: it
// reconciles tiers with the type lists, checks what only the whole
// configuration can tell, and applies the active mode.
func (l *Loaded) resolve() error {
	c := l.raw.Clone()
	eff := maps.Clone(l.origin)
	if err := reconcileTiers(c, eff); err != nil {
		return err
	}
	if err := checkWhole(c, eff); err != nil {
		return err
	}
	applyActiveMode(c, eff)
	if l.noSources {
		l.Config = c
		return nil
	}
	srcs := make([]Source, 0, 128)
	for _, lf := range leaves(c) {
		srcs = append(srcs, Source{Key: lf.key, Value: render(lf.get(c)), From: originOf(eff, lf).from})
	}
	l.Config, l.Sources = c, srcs
	return nil
}

func at(eff map[string]origin, key string) origin {
	if o, ok := eff[key]; ok {
		return o
	}
	return defaultOrigin
}

// originOf is where a key's value came from: the key's own origin, else its
// map entry's, else the defaults.
func originOf(eff map[string]origin, lf leaf) origin {
	if o, ok := eff[lf.key]; ok {
		return o
	}
	if o, ok := eff[lf.entry]; ok && lf.entry != "" {
		return o
	}
	return defaultOrigin
}

// later reports whether a takes precedence over b: a higher rank, or a
// later line of the same file. Ties go to b.
func later(a, b origin) bool {
	return a.rank > b.rank || a.rank == b.rank && a.line > b.line
}

// tierList is one of the context type lists.
type tierList struct {
	tier string
	key  string
	list *[]string
}

// claim is an explicit statement of a type's tier.
type claim struct {
	tier string
	key  string
	says string
	o    origin
}

// conflict reports two claims that disagree, at the one that wins by
// precedence (or comes later in the same file).
func conflict(a, b claim) error {
	if later(a.o, b.o) {
		a, b = b, a
	}
	return errAt(b.o, b.key, fmt.Sprintf("%s, but %s %s (%s); a type has one tier", b.says, a.key, a.says, a.o.from))
}

// reconcileTiers makes the lifecycle tiers and the context type lists agree
// (see the package doc): explicit settings win over defaults, and two
// explicit settings must not disagree.
func reconcileTiers(c *Config, eff map[string]origin) error {
	lists := []tierList{
		{string(cairn.TierStatic), "context.static.types", &c.Context.Static.Types},
		{string(cairn.TierDynamic), "context.dynamic.types", &c.Context.Dynamic.Types},
		{string(cairn.TierRelevant), "context.relevant.types", &c.Context.Relevant.Types},
	}
	for _, tl := range lists {
		for _, t := range *tl.list {
			if _, ok := c.Lifecycle[t]; !ok {
				return errAt(at(eff, tl.key), tl.key, unknownType(c, t)+"; declare a new type with a [lifecycle] table and a tier")
			}
		}
	}
	names := slices.Sorted(maps.Keys(c.Lifecycle))
	reconcile := names
	if !anyExplicit(eff) {
		reconcile = nil // every tier and list is a default: nothing to reconcile type by type
	}
	for _, t := range reconcile {
		lc := c.Lifecycle[t]
		tierKey := keyString("lifecycle", t, "tier")
		var claims []claim
		if o := at(eff, tierKey); o.rank > rankDefault {
			claims = append(claims, claim{lc.Tier, tierKey, fmt.Sprintf("is %q", lc.Tier), o})
		}
		for _, tl := range lists {
			if o := at(eff, tl.key); o.rank > rankDefault && slices.Contains(*tl.list, t) {
				claims = append(claims, claim{tl.tier, tl.key, fmt.Sprintf("lists %q", t), o})
			}
		}
		for _, cl := range claims {
			if cl.tier != claims[0].tier {
				return conflict(claims[0], cl)
			}
		}
		final, cause := lc.Tier, defaultOrigin
		if len(claims) > 0 {
			final, cause = claims[0].tier, claims[0].o
		}
		// An explicit static or dynamic list that leaves the type out.
		for _, tl := range lists[:2] {
			o := at(eff, tl.key)
			if o.rank == rankDefault || final != tl.tier || slices.Contains(*tl.list, t) {
				continue
			}
			if len(claims) > 0 {
				return conflict(claims[0], claim{key: tl.key, says: fmt.Sprintf("does not list %q", t), o: o})
			}
			final, cause = string(cairn.TierRelevant), o
		}
		if final != lc.Tier {
			lc.Tier = final
			c.Lifecycle[t] = lc
			eff[tierKey] = cause
		}
	}
	// The lists still at their defaults follow the tiers.
	for _, tl := range lists[:2] {
		if at(eff, tl.key).rank > rankDefault {
			continue
		}
		want := c.TypesOfTier(tl.tier)
		if slices.Equal(want, *tl.list) {
			continue
		}
		cause := defaultOrigin
		for _, t := range names {
			if o := at(eff, keyString("lifecycle", t, "tier")); slices.Contains(want, t) != slices.Contains(*tl.list, t) && o.rank >= cause.rank {
				cause = o
			}
		}
		*tl.list = want
		eff[tl.key] = cause
	}
	return nil
}

// anyExplicit reports whether a key of eff was set by a file or a flag
// rather than by the defaults.
func anyExplicit(eff map[string]origin) bool {
	for _, o := range eff {
		if o.rank > rankDefault {
			return true
		}
	}
	return false
}

// checkWhole checks what involves more than one key: mode names and counts
// against their maxima.
func checkWhole(c *Config, eff map[string]origin) error {
	modes := c.ModeNames()
	unknownMode := func(name string) string {
		msg := fmt.Sprintf("unknown mode %q (known modes: %s", name, strings.Join(modes, ", "))
		if s := nearest(name, modes); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return msg + ")"
	}
	if m := c.Context.Mode; m != "" && !slices.Contains(modes, m) {
		return errAt(at(eff, "context.mode"), "context.mode", unknownMode(m))
	}
	for _, k := range c.Keywords {
		if k.Mode != "" && !slices.Contains(modes, k.Mode) {
			lf, _ := keywordLeaf(k.Phrase, "mode")
			return errAt(originOf(eff, lf), lf.key, unknownMode(k.Mode))
		}
	}
	pairs := []struct {
		countKey, maxKey string
		count, max       int
	}{
		{"context.dynamic.count", "context.dynamic.max_count", c.Context.Dynamic.Count, c.Context.Dynamic.MaxCount},
		{"context.relevant.limit", "context.relevant.max_limit", c.Context.Relevant.Limit, c.Context.Relevant.MaxLimit},
	}
	for _, p := range pairs {
		if p.count <= p.max {
			continue
		}
		co, mo := at(eff, p.countKey), at(eff, p.maxKey)
		if later(co, mo) {
			return errAt(co, p.countKey, fmt.Sprintf("%d is more than %s, %d (%s)", p.count, p.maxKey, p.max, mo.from))
		}
		return errAt(mo, p.maxKey, fmt.Sprintf("%d is less than %s, %d (%s)", p.max, p.countKey, p.count, co.from))
	}
	return nil
}

// applyActiveMode applies context.mode to the keys that no override set.
func applyActiveMode(c *Config, eff map[string]origin) {
	name := c.Context.Mode
	m, ok := c.Modes[name]
	if name == "" || !ok {
		return
	}
	apply := func(v int, key, field string, p *int, limit int) {
		if v == 0 || at(eff, key).rank >= rankOverride {
			return
		}
		*p = min(v, limit)
		lf, _ := modeLeaf(name, field)
		eff[key] = origin{from: fmt.Sprintf("mode %s (%s)", name, originOf(eff, lf).from), rank: rankOverride}
	}
	apply(m.DynamicCount, "context.dynamic.count", "dynamic_count", &c.Context.Dynamic.Count, c.Context.Dynamic.MaxCount)
	apply(m.SearchLimit, "context.relevant.limit", "search_limit", &c.Context.Relevant.Limit, c.Context.Relevant.MaxLimit)
	apply(m.Budget, "context.budget", "budget", &c.Context.Budget, maxBudget)
}

// Values returns every key of c with its value, sorted by key, as Sources
// gives them, each from from: a configuration that came another way (a
// project's settings stored in the database) shown as a file's is.
func Values(c *Config, from string) []Source {
	srcs := make([]Source, 0, 128)
	for _, lf := range leaves(c) {
		srcs = append(srcs, Source{Key: lf.key, Value: render(lf.get(c)), From: from})
	}
	return srcs
}
