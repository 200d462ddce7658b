package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/httpapi"
)

// openAPI is the parsed document with what the validator needs.
type openAPI struct {
	doc     map[string]any
	schemas map[string]any
	ops     map[string]map[string]any // "METHOD /path/{template}" → operation
	routes  []route
}

type route struct {
	method, template string
	re               *regexp.Regexp
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(httpapi.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	o := &openAPI{doc: doc, schemas: doc["components"].(map[string]any)["schemas"].(map[string]any), ops: map[string]map[string]any{}}
	for path, item := range doc["paths"].(map[string]any) {
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[a-z]+\\\}`).ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for method, op := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			m := strings.ToUpper(method)
			o.ops[m+" "+path] = op.(map[string]any)
			o.routes = append(o.routes, route{m, path, re})
		}
	}
	return o
}

// match returns the operation key of a request: of the templates that
// match, the one with the fewest parameters (/memories/search before
// /memories/{id}, as the server's router picks).
func (o *openAPI) match(method, path string) (string, bool) {
	path, _, _ = strings.Cut(path, "?")
	best, params := "", -1
	for _, r := range o.routes {
		if r.method == method && r.re.MatchString(path) {
			if n := strings.Count(r.template, "{"); params < 0 || n < params {
				best, params = r.method+" "+r.template, n
			}
		}
	}
	return best, params >= 0
}

// check validates an answer against its operation's response for the
// status (or "default"), by content type; JSON Lines are checked line by
// line.
func (o *openAPI) check(key string, r response) error {
	resps := o.ops[key]["responses"].(map[string]any)
	spec, ok := resps[strconv.Itoa(r.status)]
	if !ok {
		if spec, ok = resps["default"]; !ok || r.status < 400 {
			return fmt.Errorf("status %d is not documented", r.status)
		}
	}
	content, _ := spec.(map[string]any)["content"].(map[string]any)
	ctype, _, _ := strings.Cut(r.ctype, ";")
	media, ok := content[ctype].(map[string]any)
	if !ok {
		return fmt.Errorf("content type %q is not documented for %d", r.ctype, r.status)
	}
	schema := media["schema"].(map[string]any)
	if ctype == "application/x-ndjson" {
		for i, line := range bytes.Split(bytes.TrimSpace(r.body), []byte("\n")) {
			if err := o.validateJSON(schema, line); err != nil {
				return fmt.Errorf("line %d: %v", i+1, err)
			}
		}
		return nil
	}
	return o.validateJSON(schema, r.body)
}

func (o *openAPI) validateJSON(schema map[string]any, b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if errs := o.validate(schema, v, "$"); len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// validate checks v against the subset of JSON Schema the document uses:
// $ref, allOf, type, enum, required, properties, additionalProperties,
// items, minimum, maximum and format date-time.
func (o *openAPI) validate(s map[string]any, v any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, ok := o.schemas[name].(map[string]any)
		if !ok {
			return []string{at + ": unknown $ref " + ref}
		}
		return o.validate(target, v, at)
	}
	var errs []string
	for _, sub := range asList(s["allOf"]) {
		errs = append(errs, o.validate(sub.(map[string]any), v, at)...)
	}
	if t, ok := s["type"].(string); ok && !hasType(v, t) {
		return append(errs, fmt.Sprintf("%s: %s is not of type %s", at, short(v), t))
	}
	if enum := asList(s["enum"]); enum != nil && !slices.Contains(enum, v) {
		errs = append(errs, fmt.Sprintf("%s: %s is not one of %v", at, short(v), enum))
	}
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		if min, ok := s["minimum"].(float64); ok && f < min {
			errs = append(errs, fmt.Sprintf("%s: %v is below %v", at, f, min))
		}
		if max, ok := s["maximum"].(float64); ok && f > max {
			errs = append(errs, fmt.Sprintf("%s: %v is above %v", at, f, max))
		}
	}
	if str, ok := v.(string); ok && s["format"] == "date-time" {
		if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %q is not RFC 3339", at, str))
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		for _, req := range asList(s["required"]) {
			if _, ok := obj[req.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: %s is required", at, req))
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, o.validate(ps, obj[k], at+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					errs = append(errs, fmt.Sprintf("%s: %s is not a documented property", at, k))
				}
			case map[string]any:
				errs = append(errs, o.validate(ap, obj[k], at+"."+k)...)
			default:
				// Without additionalProperties an undocumented field
				// is allowed by JSON Schema, but not by this API: every
				// field it writes is documented (allOf parts document
				// each other's fields).
				if s["allOf"] == nil && !o.inAllOf(k) {
					errs = append(errs, fmt.Sprintf("%s: %s is not documented", at, k))
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range arr {
				errs = append(errs, o.validate(items, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return errs
}

// inAllOf reports whether k is a property of a schema that is combined
// with others by allOf (the fields of a Hit are its Memory's and its own).
func (o *openAPI) inAllOf(k string) bool {
	for _, s := range o.schemas {
		for _, sub := range asList(s.(map[string]any)["allOf"]) {
			sm := sub.(map[string]any)
			if ref, ok := sm["$ref"].(string); ok {
				sm = o.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
			}
			if props, ok := sm["properties"].(map[string]any); ok && props[k] != nil {
				return true
			}
		}
	}
	return false
}

func asList(v any) []any { l, _ := v.([]any); return l }

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	case "null":
		return v == nil
	}
	return false
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// TestValidatorRefusesWhatTheDocumentDoesNotAllow feeds the validator a
// wrong type, a missing required field, a value outside an enum, an
// undocumented field, a bad date and a bad array item.
func TestValidatorRefusesWhatTheDocumentDoesNotAllow(t *testing.T) {
	t.Parallel()
	o := loadOpenAPI(t)
	mem := func(m string) []byte {
		return []byte(`{"id":"mem-1","type":"note","title":"t","content":"c","tags":[],"file_refs":[],"confidence":0.5,"use_count":0` + m + `}`)
	}
	schema := map[string]any{"$ref": "#/components/schemas/Memory"}
	if err := o.validateJSON(schema, mem("")); err != nil {
		t.Fatalf("a valid memory is refused: %v", err)
	}
	for _, bad := range [][]byte{
		mem(`,"pinned":"yes"`), mem(`,"scope":"galaxy"`), mem(`,"colour":"red"`), mem(`,"created_at":"yesterday"`),
		mem(`,"tags":[1]`), mem(`,"use_count":1.5`), []byte(`{"id":"mem-1"}`), []byte(`[]`),
	} {
		if err := o.validateJSON(schema, bad); err == nil {
			t.Errorf("%s is accepted", bad)
		}
	}
}

// TestEveryRouteAnswersAsItsOpenAPIDocumentSays calls every operation of
// the document, successes and errors, and checks each answer against the
// document.
func TestEveryRouteAnswersAsItsOpenAPIDocumentSays(t *testing.T) {
	t.Parallel()
	o := loadOpenAPI(t)
	a := newAPI(t, false)
	seen := map[string]bool{}
	call := func(method, path string, body any, wantStatus int) response {
		t.Helper()
		r := a.do(method, path, body, "")
		key, ok := o.match(method, path)
		if !ok {
			t.Fatalf("%s %s is not in the document", method, path)
		}
		seen[key] = true
		if r.status != wantStatus {
			t.Errorf("%s %s: %v, want %d", method, path, r, wantStatus)
		}
		if err := o.check(key, r); err != nil {
			t.Errorf("%s %s: the answer does not match the document: %v\n%s", method, path, err, r.body)
		}
		return r
	}
	p := "/api/projects/demo"
	var w struct{ Memory struct{ ID string } }
	call("POST", p+"/memories", map[string]any{"content": "Chose SQLite for local storage: no server to run.", "type": "decision",
		"tags": []string{"storage"}, "file_refs": []string{"sqlite/*.go"}, "created_by_agent": "claude", "created_by_session_id": "s1"}, 201).decode(t, &w)
	first := w.Memory.ID
	call("POST", p+"/memories", map[string]any{"content": "Chose SQLite for local storage: no server to run.", "type": "decision"}, 200)
	call("POST", p+"/memories", map[string]any{"content": "Postgres for teams, later.", "type": "decision"}, 201).decode(t, &w)
	second := w.Memory.ID
	call("POST", p+"/memories", map[string]any{"content": "x", "type": "decison"}, 400)
	call("GET", p+"/memories?type=decision&tag=storage&min_confidence=0.1&sort=confidence&limit=5&offset=0", nil, 200)
	call("GET", p+"/memories?source=explicit&never_used=true&expiry=soon&agent=claude&global=false", nil, 200)
	call("GET", p+"/memories?expires_after=2020-01-01&expires_before=2040-01-01", nil, 200)
	call("GET", p+"/memories?source=rumour", nil, 400)
	call("GET", p+"/memories?stale=true&limit=5", nil, 200)
	call("GET", "/api/projects/nofolder/memories?stale=true", nil, 400)
	call("GET", "/api/projects", nil, 200)
	call("GET", p+"/stats/created?weeks=4", nil, 200)
	call("GET", p+"/stats/created?weeks=0", nil, 400)
	call("GET", p+"/conflicts", nil, 200)
	call("POST", p+"/recall", map[string]any{"types": []string{"decision"}, "agent": "claude", "limit": 5, "session": "s9", "record": true}, 200)
	call("POST", p+"/recall", map[string]any{"limit": 5000}, 400)
	var tok struct{ ID, Token string }
	call("POST", "/api/tokens", map[string]any{"project": "demo", "name": "ci", "read_only": true}, 200).decode(t, &tok)
	call("POST", "/api/tokens", map[string]any{"project": ""}, 400)
	call("GET", "/api/tokens", nil, 200)
	call("DELETE", "/api/tokens/"+tok.ID, nil, 200)
	call("DELETE", "/api/tokens/"+tok.ID, nil, 404)
	call("GET", p+"/memories/"+first, nil, 200)
	call("GET", p+"/memories/mem-0000000000000000", nil, 404)
	call("PATCH", p+"/memories/"+first, map[string]any{"title": "SQLite for local storage", "tags": []string{"storage", "db"}, "expires_at": "2030-01-01"}, 200)
	call("POST", p+"/memories/"+first+"/pin", nil, 200)
	call("POST", p+"/memories/"+first+"/unpin", nil, 200)
	call("POST", p+"/memories/"+first+"/verify", nil, 200)
	call("POST", p+"/memories/"+second+"/promote", map[string]any{"type": "pattern"}, 200)
	call("POST", p+"/memories/"+second+"/promote", map[string]any{}, 400)
	call("POST", p+"/memories/"+first+"/supersede", map[string]any{"by": second}, 200)
	call("GET", p+"/memories/"+first+"/chain", nil, 200)
	call("POST", p+"/memories", map[string]any{"content": "Postgres for teams, now.", "type": "decision", "source": "extracted", "supersedes": second}, 201)
	call("POST", p+"/memories", map[string]any{"content": "y", "source": "rumour"}, 400)
	call("POST", p+"/memories", map[string]any{"content": "Notes of a file.", "type": "file", "key": "memtool:/memories/a.md", "create_only": true}, 201)
	call("POST", p+"/memories", map[string]any{"content": "Other notes.", "type": "file", "key": "memtool:/memories/a.md", "create_only": true}, 409)
	call("POST", p+"/memories", map[string]any{"content": "No key.", "create_only": true}, 400)
	call("GET", p+"/types/near?type=decison", nil, 200)
	// A project's settings: none stored, stored, checked as a file's keys
	// are (a budget beyond its range), forgotten.
	call("GET", p+"/settings", nil, 404)
	set := cairn.DefaultSettings()
	set.Lifecycle["learning"] = cairn.TypeLifecycle{TTLDays: 2, Tier: "relevant"}
	call("PUT", p+"/settings", map[string]any{"settings": set, "source": "/p/.cairn/cairn.toml", "folder": "/p"}, 200)
	call("GET", p+"/settings", nil, 200)
	bad := cairn.DefaultSettings()
	bad.Context.Budget = 1 << 30
	call("PUT", p+"/settings", map[string]any{"settings": bad}, 400)
	call("PUT", p+"/settings", map[string]any{}, 400)
	call("DELETE", p+"/settings", nil, 200)
	call("GET", p+"/types/near", nil, 400)
	call("GET", p+"/search?q=sqlite+storage&explain=1&after=2020-01-01&before=2030-01-01&limit=3", nil, 200)
	call("GET", p+"/search?q=sqlite&type=decision", nil, 200)
	call("GET", p+"/search", nil, 400)
	call("GET", p+"/search/terms?q=AuthService.Refresh+tokens", nil, 200)
	call("GET", p+"/memories/search?q=sqlite+storage&after_date=2020-01-01&before_date=2030-01-01&limit=3", nil, 200)
	call("GET", p+"/memories/search?q=sqlite&before=2030-01-01&before_date=2030-01-01", nil, 400)
	call("GET", "/api/memories/"+first, nil, 200)
	call("GET", "/api/memories/mem-0000000000000000", nil, 404)
	call("PUT", "/api/memories/"+first, map[string]any{"tags": []string{"storage", "db", "local"}}, 200)
	call("PUT", "/api/memories/"+first, map[string]any{"confidence": 2}, 400)
	call("POST", p+"/context", map[string]any{"prompt": "which database for storage", "files": []string{"sqlite/tx.go"}, "hat": "creator",
		"agent": "claude", "task": "t1", "session": "s2", "budget": 800, "format": "json"}, 200)
	call("POST", p+"/lookup", map[string]any{"kind": "file", "subject": "sqlite/db.go"}, 200)
	call("POST", p+"/lookup", map[string]any{"kind": "error", "subject": "sqlite storage locked", "budget": 200, "limit": 3}, 200)
	call("POST", p+"/lookup", map[string]any{"profile": "failure", "subject": "database is locked"}, 200)
	call("POST", p+"/lookup", map[string]any{"kind": "command-failures", "command": "go test ./sqlite/...", "session": "s9", "shown_times": 1, "record": true}, 200)
	call("POST", p+"/lookup", map[string]any{"kind": "colour", "subject": "x"}, 400)
	call("POST", p+"/lookup", map[string]any{"kind": "command", "subject": " "}, 400)
	call("POST", p+"/context", map[string]any{"budget": -1}, 400)
	call("POST", p+"/capture", map[string]any{"text": "done.\nMEMORY:pitfall:The tx helper never retries on SQLITE_BUSY.\nMEMORY:nonsense\n", "agent": "codex", "session": "s3"}, 200)
	call("POST", p+"/capture", map[string]any{"text": "The store uses SQLite in WAL mode.", "hat_transition": "explorer:planner"}, 200)
	call("POST", p+"/capture", map[string]any{"text": "x", "hat_transition": "critic:editor"}, 400)
	call("POST", p+"/tasks/events", map[string]any{"event": "completed", "task": "T-1", "agent": "claude", "files": []string{"a.go"},
		"text": "Done. Always run the migrations before the tests.\nMEMORY:pitfall:The fixture clock is shared.\nMEMORY:nonsense"}, 200)
	call("POST", p+"/tasks/events", map[string]any{"event": "created", "text": "no task id"}, 400)
	call("POST", p+"/import", `{"type":"convention","content":"Errors are one sentence."}`+"\n"+`{"type":"note","content":"Imported twice."}`+"\n", 200)
	call("POST", p+"/import", `{"type":"note","confidence":"high","content":"x"}`+"\n", 400)
	call("POST", p+"/import?skip_invalid=true", `{"type":"note","confidence":"high","content":"x"}`+"\n", 200)
	call("GET", p+"/export?type=decision,convention", nil, 200)
	call("POST", p+"/ingest", map[string]any{"memories": []any{
		map[string]any{"type": "fix", "content": "Ingested: the tx helper retries on SQLITE_BUSY now.", "created_by_session_id": "s7", "source": "extracted"},
		map[string]any{"type": "fix", "content": " "},
	}, "cursor": map[string]any{"source": "/home/u/t2.jsonl", "offset": 300, "pending": ""}}, 200)
	call("POST", p+"/ingest", map[string]any{"memories": []any{}}, 200)
	call("POST", p+"/ingest", map[string]any{"memories": make([]map[string]any, 1001)}, 400)
	call("POST", p+"/ingest", map[string]any{"memories": []any{}, "cursor": map[string]any{"source": "", "offset": 1, "pending": ""}}, 400)
	call("GET", p+"/ingest/cursor?source=%2Fhome%2Fu%2Ft.jsonl", nil, 200)
	call("PUT", p+"/ingest/cursor", map[string]any{"source": "/home/u/t.jsonl", "offset": 120, "pending": `{"uses":{}}`}, 200)
	call("PUT", p+"/ingest/cursor", map[string]any{"source": "", "offset": 1}, 400)
	call("PUT", p+"/ingest/cursor", map[string]any{"source": "/home/u/t.jsonl", "offset": -1}, 400)
	call("GET", p+"/ingest/cursor", nil, 400)
	call("POST", p+"/uses", map[string]any{"ids": []string{first, "mem-0000000000000000"}, "session": "s9"}, 200)
	call("POST", p+"/uses", map[string]any{"ids": make([]string, 1001), "session": "s9"}, 400)
	call("GET", p+"/stats", nil, 200)
	call("GET", p+"/activity?limit=5&action=created,pinned", nil, 200)
	call("GET", p+"/activity?memory="+first, nil, 200)
	call("GET", p+"/activity?limit=0", nil, 200)
	call("GET", p+"/activity?limit=-1", nil, 400)
	call("GET", p+"/activity?action=exploded", nil, 400)
	call("POST", p+"/cleanup", nil, 200)
	call("POST", p+"/cleanup?apply=true", nil, 200)
	call("POST", p+"/memories/cleanup", nil, 200)
	call("POST", p+"/memories/cleanup?apply=maybe", nil, 400)
	call("POST", p+"/loop/iterations", map[string]any{"task": "7", "iteration": 1, "outcome": "failed", "model": "sonnet", "duration_ms": 61000,
		"cost_usd": 0.42, "result": "<failure-report>\nerror: TestSync times out\navoid: more retries\n</failure-report>\n<learning>never closed"}, 200)
	call("POST", p+"/loop/iterations", map[string]any{"task": "7", "iteration": 2, "outcome": "no-signal"}, 200)
	call("POST", p+"/loop/iterations", map[string]any{"task": "7", "iteration": 0, "outcome": "maybe"}, 400)
	call("POST", p+"/loop/context", map[string]any{"task": "7", "title": "sync retries", "files": []string{"sync/client.go"}, "budget": 2000,
		"tiers": []string{"small", "large"}, "stuck_after": 2, "explain": true}, 200)
	call("POST", p+"/loop/context", map[string]any{"title": "no task"}, 400)
	call("GET", p+"/loop/model?task=7&tiers=haiku,sonnet,opus&escalate_after=2", nil, 200)
	call("GET", p+"/loop/model", nil, 400)
	call("GET", p+"/loop/status?review_after=3", nil, 200)
	call("POST", p+"/loop/prune", map[string]any{"archive_after_hours": 1, "aggregate_after_hours": 2000}, 200)
	call("POST", p+"/loop/prune", map[string]any{"archive_after_hours": -1}, 400)
	call("DELETE", p+"/memories/"+second, nil, 200)
	call("DELETE", p+"/memories/"+second, nil, 404)
	call("DELETE", "/api/memories/"+first, nil, 200)
	call("DELETE", "/api/memories/"+first, nil, 404)
	call("GET", "/api/openapi.json", nil, 200)
	var missing []string
	for key := range o.ops {
		if !seen[key] {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations never called: %v", missing)
	}
}
