package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/filestale"
	"github.com/cairn-dev/cairn/wire"
)

// Routes of memories: list, add, get, update, delete, and the lifecycle
// actions pin, unpin, verify, promote and supersede.

// maxListLimit bounds a page of GET /memories.
const maxListLimit = 1000

// expiringSoon is how far ahead expiry=soon looks.
const expiringSoon = 7 * 24 * time.Hour

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	f := cairn.MemoryFilter{
		Project: p.name, IncludeGlobal: q.flag("global", true), Types: q.types("type"), Tags: q.list("tag"),
		MinConfidence: q.number("min_confidence"), After: q.time("after"), Before: q.time("before"),
		Session: q.str("session"), Agent: q.str("agent"), HasFileRefs: q.flag("has_files", false),
		Source:    cairn.Source(q.oneOf("source", "", string(cairn.SourceExplicit), string(cairn.SourceAutomatic), string(cairn.SourceExtracted), string(cairn.SourceImported))),
		NeverUsed: q.flag("never_used", false), ExpiresAfter: q.time("expires_after"), ExpiresBefore: q.time("expires_before"),
		SkipTotal: q.flag("skip_total", false), Limit: q.integer("limit", 50, 1, maxListLimit), Offset: q.integer("offset", 0, 0, 1<<30),
		Sort: q.oneOf("sort", cairn.SortCreatedDesc, cairn.SortCreatedDesc, cairn.SortCreatedAsc, cairn.SortUpdatedDesc,
			cairn.SortConfidenceDesc, cairn.SortUsedDesc, cairn.SortLastUsedDesc, cairn.SortValueDesc),
	}
	now := p.svc.Now()
	switch q.oneOf("expiry", "", "any", "soon", "expired") {
	case "any": // every memory that expires, expired or not
		f.ExpiresAfter = time.UnixMilli(1)
	case "soon": // in force, and expiring within expiringSoon
		f.ExpiresAfter, f.ExpiresBefore = now.Add(time.Millisecond), now.Add(expiringSoon)
	case "expired":
		f.ExpiresBefore = now.Add(time.Millisecond)
	}
	stale := q.flag("stale", false)
	if q.err != nil {
		return q.err
	}
	root := s.root(p.name)
	var mems []*cairn.Memory
	var total int
	var err error
	if stale {
		if root == "" {
			return cairn.Errorf(cairn.EINVALID, "stale: this server does not know the folder of project %s, so it cannot tell which files changed (serve checks its own project's folder)", p.name)
		}
		mems, total, err = findStale(r.Context(), p.svc, f, root)
	} else {
		mems, total, err = p.svc.FindMemories(r.Context(), f)
	}
	if err != nil {
		return err
	}
	out := wire.ListOut{Memories: make([]*wire.Memory, 0, len(mems)), Total: total}
	checker := &filestale.Checker{Root: root}
	for _, m := range mems {
		out.Memories = append(out.Memories, wire.FromMemory(m))
		if stale || checker.Stale(m) {
			out.Stale = append(out.Stale, m.ID)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// findStale pages the memories matching f whose files changed after
// they were written or verified (package filestale), under root, newest
// first. Only memories with file references can be; all of them are
// checked, to count the total, in batches read from the (project,
// created_at) index: each batch starts where the last one ended (not at
// an offset, which would read every earlier batch again).
func findStale(ctx context.Context, svc Service, f cairn.MemoryFilter, root string) ([]*cairn.Memory, int, error) {
	limit, offset := f.Limit, f.Offset
	f.HasFileRefs, f.SkipTotal, f.Limit, f.Offset, f.Sort = true, true, staleBatch, 0, cairn.SortCreatedDesc
	checker := &filestale.Checker{Root: root}
	var page []*cairn.Memory
	total := 0
	seen := map[string]bool{} // ids read at the batch's boundary time
	for {
		batch, _, err := svc.FindMemories(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range batch {
			if seen[m.ID] || !checker.Stale(m) {
				continue
			}
			if total >= offset && len(page) < limit {
				page = append(page, m)
			}
			total++
		}
		if len(batch) < f.Limit {
			return page, total, nil
		}
		first, last := batch[0].CreatedAt, batch[len(batch)-1].CreatedAt
		if first.Equal(last) {
			// A whole batch of one millisecond (an import's, say): on
			// through it by offset.
			f.Offset += len(batch)
			continue
		}
		// The next batch: created before the last one read, or at the
		// same millisecond and not read yet.
		clear(seen)
		for _, m := range batch {
			if m.CreatedAt.Equal(last) {
				seen[m.ID] = true
			}
		}
		f.Before, f.Offset = last.Add(time.Millisecond), 0
	}
}

// staleBatch is how many memories findStale reads at once.
var staleBatch = 1000

func (s *Server) addMemory(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.AddIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	m, err := in.Memory(p.name)
	if err != nil {
		return err
	}
	if err := checkNewType(r.Context(), p, in.Type, in.NewType); err != nil {
		return err
	}
	var res *cairn.WriteResult
	var replaced *cairn.Memory
	switch {
	case in.CreateOnly && strings.TrimSpace(in.Supersedes) != "":
		return cairn.Errorf(cairn.EINVALID, "a memory created only if new cannot supersede another")
	case in.CreateOnly:
		res, err = p.svc.CreateMemory(r.Context(), m)
	case strings.TrimSpace(in.Supersedes) != "":
		res, replaced, err = p.svc.AddSuperseding(r.Context(), m, in.Supersedes)
	default:
		res, err = p.svc.AddMemory(r.Context(), m)
	}
	if err != nil {
		return err
	}
	st := http.StatusOK
	if res.Status == cairn.StatusCreated {
		st = http.StatusCreated
	}
	out := wire.WriteOut{Status: res.Status, Memory: wire.FromMemory(res.Memory)}
	if replaced != nil {
		out.Supersedes = []string{replaced.ID}
	}
	writeJSON(w, st, out)
	return nil
}

// nearType answers the known type one edit away from the type asked
// about, or "" (a likely typo is refused by writes unless new_type).
func (s *Server) nearType(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	typ := strings.TrimSpace(q.str("type"))
	if q.err != nil {
		return q.err
	}
	if typ == "" {
		return cairn.Errorf(cairn.EINVALID, "give type: the type name to check")
	}
	near, err := p.svc.NearType(r.Context(), p.name, typ)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nearOut{Type: typ, Near: near})
	return nil
}

// nearOut is the answer of GET /types/near.
type nearOut struct {
	Type string `json:"type"`
	Near string `json:"near"`
}

// chain answers the supersede chain of a memory, replaced memories
// first; a memory outside any chain answers itself alone.
func (s *Server) chain(w http.ResponseWriter, r *http.Request, p *project) error {
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	chain, err := p.svc.SupersedeChain(r.Context(), m.ID)
	if err != nil {
		return err
	}
	out := wire.ListOut{Memories: make([]*wire.Memory, 0, len(chain)), Total: len(chain)}
	for _, c := range chain {
		out.Memories = append(out.Memories, wire.FromMemory(c))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// checkNewType refuses a type one edit away from a known type, a likely
// typo, unless newType says it is meant.
func checkNewType(ctx context.Context, p *project, typ string, newType bool) error {
	if typ == "" || newType {
		return nil
	}
	near, err := p.svc.NearType(ctx, p.name, typ)
	if err != nil || near == "" {
		return err
	}
	return cairn.Errorf(cairn.EINVALID, "%q is not a known type; did you mean %q? (set new_type to store it as a new type)", typ, near)
}

// visible returns the memory the path's id names, in the project.
func visible(r *http.Request, p *project) (*cairn.Memory, error) {
	id := strings.TrimSpace(r.PathValue("id"))
	if id == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the id is empty")
	}
	return p.svc.FindMemoryByID(r.Context(), id)
}

func (s *Server) getMemory(w http.ResponseWriter, r *http.Request, p *project) error {
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.FromMemory(m))
	return nil
}

func ptrTo[T, U any](v *T, conv func(T) U) *U {
	if v == nil {
		return nil
	}
	u := conv(*v)
	return &u
}

func (s *Server) updateMemory(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.UpdateIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	text := func(t wire.Text) string { return string(t) }
	upd := cairn.MemoryUpdate{
		Type: in.Type, Key: in.Key, Title: in.Title, Content: in.Content,
		Tags:  ptrTo(in.Tags, func(l wire.List) []string { return []string(l) }),
		Scope: ptrTo(in.Scope, func(s string) cairn.Scope { return cairn.Scope(s) }), Pinned: in.Pinned,
		FileRefs: ptrTo(in.FileRefs, func(l wire.List) []string { return []string(l) }), Confidence: in.Confidence,
		ExpiresAt: ptrTo(in.ExpiresAt, wire.Time.Time), VerifiedAt: ptrTo(in.VerifiedAt, wire.Time.Time),
		Agent: ptrTo(in.CreatedByAgent, text), Hat: ptrTo(in.CreatedByHat, text),
		TaskID: ptrTo(in.CreatedByTaskID, text), SessionID: ptrTo(in.CreatedBySessionID, text),
	}
	if upd == (cairn.MemoryUpdate{}) && in.SupersededBy == nil {
		return cairn.Errorf(cairn.EINVALID, "nothing to change: give at least one field")
	}
	upd.LowerConfidence = in.LowerConfidence
	if in.Type != nil {
		if err := checkNewType(r.Context(), p, *in.Type, in.NewType); err != nil {
			return err
		}
	}
	if in.SupersededBy != nil {
		by := *in.SupersededBy
		if by != "" {
			// A prefix names a memory this project can see; an id of
			// none is the service's ENOTFOUND, worded as it words it.
			n, err := p.svc.FindMemoryByID(r.Context(), by)
			switch {
			case err == nil:
				by = n.ID
			case cairn.ErrorCode(err) != cairn.ENOTFOUND:
				return err
			}
		}
		upd.SupersededBy = &by
	}
	return s.update(w, r, p, m.ID, upd)
}

// update applies upd to the memory id and answers it.
func (s *Server) update(w http.ResponseWriter, r *http.Request, p *project, id string, upd cairn.MemoryUpdate) error {
	n, err := p.svc.UpdateMemory(r.Context(), id, upd)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.FromMemory(n))
	return nil
}

// deleteOut says which memory was deleted.
type deleteOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request, p *project) error {
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	if err := p.svc.DeleteMemory(r.Context(), m.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deleteOut{ID: m.ID, Deleted: true})
	return nil
}

// pin returns the handler that pins (or unpins) a memory.
func (s *Server) pin(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p *project) error {
		m, err := visible(r, p)
		if err != nil {
			return err
		}
		return s.update(w, r, p, m.ID, cairn.MemoryUpdate{Pinned: &on})
	}
}

func (s *Server) verify(w http.ResponseWriter, r *http.Request, p *project) error {
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	now := p.svc.Now()
	return s.update(w, r, p, m.ID, cairn.MemoryUpdate{VerifiedAt: &now})
}

// promoteIn is the body of POST /memories/{id}/promote.
type promoteIn struct {
	Type    string `json:"type"`
	Scope   string `json:"scope"`
	NewType bool   `json:"new_type"`
}

func (s *Server) promote(w http.ResponseWriter, r *http.Request, p *project) error {
	var in promoteIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if in.Type == "" && in.Scope == "" {
		return cairn.Errorf(cairn.EINVALID, "say what to promote to: type, scope global, or both")
	}
	if in.Scope != "" && in.Scope != string(cairn.ScopeGlobal) {
		return cairn.Errorf(cairn.EINVALID, "scope can only be global (to narrow a memory's scope, PATCH it)")
	}
	if err := checkNewType(r.Context(), p, in.Type, in.NewType); err != nil {
		return err
	}
	m, err := visible(r, p)
	if err != nil {
		return err
	}
	var upd cairn.MemoryUpdate
	if in.Type != "" {
		upd.Type = &in.Type
	}
	if in.Scope != "" {
		sc := cairn.ScopeGlobal
		upd.Scope = &sc
	}
	return s.update(w, r, p, m.ID, upd)
}

// supersedeIn is the body of POST /memories/{id}/supersede: the memory
// that replaces it.
type supersedeIn struct {
	By string `json:"by"`
}

func (s *Server) supersede(w http.ResponseWriter, r *http.Request, p *project) error {
	var in supersedeIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.By) == "" {
		return cairn.Errorf(cairn.EINVALID, "give by: the id of the memory that replaces this one")
	}
	old, err := visible(r, p)
	if err != nil {
		return err
	}
	nw, err := p.svc.FindMemoryByID(r.Context(), in.By)
	if err != nil {
		return err
	}
	return s.update(w, r, p, old.ID, cairn.MemoryUpdate{SupersededBy: &nw.ID})
}
