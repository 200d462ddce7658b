package main

// Placeholders in templates, filled by filler.fill. A digit suffix draws
// another item of the same class ({T} and {T2} differ; every {T} in one
// memory is the same):
//
//	{d} domain          {p} package path     {T} CamelCase type   {F} function
//	{S} snake_case name {table} table        {env} env variable   {f} file path
//	{w} technical word  {e} error message    {es} short error     {c} command
//	{cs} short command  {D} dependency       {Ds} its short name  {M} method
//	{TestName} {ver} {n} {pct} {dur} {mig} {topic} {glob} {reason} {fixaction}
//	{cause} {next} {question} {infra}

// template is one memory shape: its type, title and first sentence(s).
type template struct {
	typ, title, body string
}

var templates = []template{
	// pattern
	{"pattern", "Tests in {p} use table-driven subtests", "Tests in {p} use table-driven subtests with t.Run; the fixture loader lives in {f}."},
	{"pattern", "Construct {T} with {F}", "{T} is always constructed through {F}, which wires the {d} store and the logger; never build it with a struct literal."},
	{"pattern", "Error wrapping in {p} handlers", "Handlers in {p} wrap errors with fmt.Errorf and %w and let {F} map them to HTTP status codes."},
	{"pattern", "{d} database access goes through {T}", "Database access for {d} goes through {T}; the queries live in {f} and are generated with `sqlc generate`."},
	{"pattern", "{d} background jobs", "Background jobs for {d} are enqueued with {F} and processed by {T}; retries use exponential backoff capped at {dur}."},
	{"pattern", "Adding a {w} endpoint", "To add a new {w} endpoint, register the route in {f}, put the handler in {p} and extend the OpenAPI spec in api/openapi.yaml."},
	{"pattern", "{T} test helpers", "Tests that need a {T} call {F}(t), which returns one backed by an in-memory {w} store and registers cleanup with t.Cleanup."},
	// convention
	{"convention", "Naming: snake_case columns, CamelCase types", "Use snake_case for column names such as {S} and {S2}, and CamelCase for Go types like {T}."},
	{"convention", "Error message style", "Error messages are lowercase without trailing punctuation and name the {w}, e.g. \"{d}: {es}\"."},
	{"convention", "Test file placement", "Test files sit next to the code ({f}) and shared helpers go into internal/testutil, never into the package under test."},
	{"convention", "Commit message prefix", "Commit messages start with the package name, as in \"{d}: fix {w} {w2} in {F}\"."},
	{"convention", "Doc comments in {p}", "Every exported function in {p} has a doc comment that starts with its name, e.g. // {F} returns the {w} for a {T}."},
	{"convention", "Context as first argument", "Functions that do I/O take ctx context.Context as the first argument; {F} is the one exception and is being migrated."},
	// pitfall
	{"pitfall", "`{c}` and {es}", "`{c}` fails with '{es}' when two tests share the SQLite file; give each test its own database under t.TempDir()."},
	{"pitfall", "{F} ignores empty {S}", "{F} silently ignores {S} when it is empty, so {T} ends up with a zero {w}; validate the input before calling it."},
	{"pitfall", "Do not call {F} inside a transaction", "Do not call {F} inside a transaction: it opens its own connection and the test deadlocks with '{e}'."},
	{"pitfall", "{Ds} caches {w} per process", "{D} caches the {w} per process, so changes to {env} only take effect after a restart of {d}."},
	{"pitfall", "Shared {d} fixtures", "The {d} fixtures in {f} are shared across packages; editing them breaks tests in {p2}."},
	// fix
	{"fix", "Fix: {es} in {p}", "Fixed '{e}' in {p}: {F} was called before {T} was initialised, so the call moved into {F2}."},
	{"fix", "Fix for `{c}` failing", "`{c}` failed with '{e}'; the fix was to {fixaction}."},
	{"fix", "Flaky {TestName}", "Flaky test {TestName} in {f} was caused by {cause}; fixed it by making sure to {fixaction}."},
	{"fix", "Pin {Ds} to {ver}", "Resolved '{es}' during `{c}` by pinning {D} to {ver} in go.mod."},
	{"fix", "{T} nil pointer", "{T}.{M} panicked with a nil pointer dereference when {S} was NULL; {F} now returns an empty {T} instead of nil."},
	// decision
	{"decision", "{Ds} over {Ds2} for {d}", "We chose {D} over {D2} for {d} because {reason}."},
	{"decision", "Keep {S} in {table}", "Decided to keep {S} in the {table} table instead of a separate table, because {reason}."},
	{"decision", "{T} stays synchronous", "{T} stays synchronous for now; moving it onto the queue was rejected because {reason}."},
	{"decision", "UTC timestamps in {d}", "All {d} timestamps are stored in UTC as RFC 3339 strings, because {reason}."},
	{"decision", "No ORM in {p}", "We do not use an ORM in {p}: queries are plain SQL in {f}, because {reason}."},
	// architecture
	{"architecture", "Layout of the {d} module", "The {d} module is split into {p} (domain logic), {p2} (HTTP handlers) and {p3} (storage)."},
	{"architecture", "Request flow {T} -> {T3}", "Requests flow from {T} through {T2} to {T3}; only {T3} talks to the database."},
	{"architecture", "{p} owns {table}", "{p} owns the {table} table; other packages read it through {F} and never query it directly."},
	{"architecture", "{d} events", "Events from {d} are published to the {topic} topic and consumed by {T} in {p2}."},
	{"architecture", "{d} caching layer", "Reads of {table} go through {T}, a read-through cache in front of Postgres with a TTL of {dur}; writes invalidate by {S}."},
	// dependency
	{"dependency", "{Ds} {ver} required", "{D} {ver} is required by {p}; newer versions change the signature of {F}."},
	{"dependency", "Vendored {Ds}", "We vendor {D} because {reason}."},
	{"dependency", "{Ds} needs {env} in CI", "{D} needs {env} set in CI, otherwise `{c}` fails with '{es}'."},
	{"dependency", "Upgrading {Ds}", "Upgrading {D} past {ver} breaks {T}: the {w} option was renamed, see {f}."},
	// constraint
	{"constraint", "{T} backwards compatibility", "{T} must stay backwards compatible: mobile clients older than {ver} still call {F}."},
	{"constraint", "Never run `{c}` against production", "Never run `{c}` against production; it drops and recreates the {table} table."},
	{"constraint", "{F} latency budget", "Responses from {F} must stay under {n} ms at p99 because it runs on every {w} request."},
	{"constraint", "Index {table} by {S}", "The {table} table holds more than {n} million rows, so every query on it needs an index on {S}."},
	// learning
	{"learning", "{F} can return nil, nil", "{F} returns a nil {T} together with a nil error when {S} is missing; callers must check both."},
	{"learning", "Slow {d} tests", "The {d} tests take {n}s because {F} sleeps between retries; set {env}=0 in tests."},
	{"learning", "`{c}` regeneration", "`{c}` only regenerates {f} when its inputs changed; delete the file to force a rebuild."},
	{"learning", "Test cache and testdata", "Running `go test -count=1` bypasses the test cache, which is needed after changing files in {p}/testdata."},
	{"learning", "{Ds} {w} behaviour", "{D} retries {w} requests on its own, so wrapping {F} in our retry helper multiplies the attempts."},
	// gotcha
	{"gotcha", "{env} read once", "{env} is read once at startup by {F}; changing it at runtime has no effect."},
	{"gotcha", "time.Now in {p}", "time.Now() in {p} is not injected; tests that compare {S} must use the clock from {F}."},
	{"gotcha", "{Ds} untyped errors", "{D} returns '{es}' as a plain string error, so errors.Is does not match it; compare with {F}."},
	{"gotcha", "{T} cache key", "The {w} cache in {T} is keyed by {S}, not by tenant, so tests leak state between cases."},
	// session
	{"session", "Session: {d} {w}", "Session summary: worked on {d} {w}; changed {f} and {f2}, ran `{c}` and it passed. Next: {next}."},
	{"session", "Session: refactor {T}", "Refactored {T} to use {F}; {n} tests updated. Open question: {question}"},
	{"session", "Session: investigating {es}", "Investigated '{e}' in {p}; not fixed yet, the suspect is {cause}."},
	// context
	{"context", "{d} runtime", "The {d} service runs on {infra} and talks to {D} for {w}."},
	{"context", "{p} is legacy", "{p} is legacy code from before the {ver} rewrite; prefer {p2} for new work."},
	{"context", "Local {d} setup", "Local development uses `{c}`; the {d} database is seeded by {f}."},
	{"context", "Owners of {d}", "The team owning {d} is on call for {table} incidents; ask them before changing {F}."},
	// issue
	{"issue", "Flaky {TestName}", "{TestName} is flaky on CI in about {pct}% of runs with '{es}'; tracked in issue #{n2}."},
	{"issue", "{F} leaks goroutines", "{F} leaks goroutines when the context is cancelled before {T} finishes; see {f}."},
	{"issue", "{T} memory growth", "Memory usage of {T} grows with the number of {table} rows because {F} loads them all; it needs pagination by {S}."},
	// task_result
	{"task_result", "Added {F}", "Added {F} to {p} with tests in {f}; `{c}` passes."},
	{"task_result", "Migration for {table}.{S}", "Migrated {table} to add {S} (migration {mig}); the backfill ran with {F}."},
	{"task_result", "Replaced {Ds} with {Ds2}", "Replaced {D} with {D2} in {p}, which removed {n} lines and the {w} workaround."},
	{"task_result", "Retry for {T}", "Implemented retry with backoff for {T} using {F}; covered by {TestName}."},
}

// typeWeights is how common each memory type is.
var typeWeights = map[string]int{
	"pattern": 12, "convention": 8, "pitfall": 9, "fix": 12, "decision": 8, "architecture": 7,
	"dependency": 5, "constraint": 4, "learning": 9, "gotcha": 6, "session": 6, "context": 6,
	"issue": 5, "task_result": 5,
}

// typeOrder fixes the order in which types are weighed (map order is random).
var typeOrder = []string{
	"pattern", "convention", "pitfall", "fix", "decision", "architecture", "dependency",
	"constraint", "learning", "gotcha", "session", "context", "issue", "task_result",
}

// extras are follow-up sentences added to reach 1–4 sentences.
var extras = []string{
	"See {f} for the details.",
	"Confirmed by running `{c}`.",
	"The same applies to {p2}.",
	"The relevant code is {T}.{M} in {f}.",
	"It took a while to find because the {w} {w2} problem only shows up with -race.",
	"Related fields: {S} and {S2}.",
	"The reason: {reason}.",
	"The error message was '{e}'.",
	"Watch out for the {w} handling in {F}.",
	"Ask the {d} owners before changing {env}.",
	"Last checked with {D} {ver}.",
	"Reproduce with `{c}`.",
	"Both {T} and {T2} depend on this.",
	"{F2} has the same problem but nobody has hit it yet.",
	"The {w} test in {f2} covers it.",
	"Do not remove the {w} check in {F}; it looks redundant but it is not.",
	"This came up again while working on {d} {w}.",
	"If it fails on CI only, look at the {w} settings in .github/workflows/ci.yml.",
	"The {table} rows must be cleaned up in t.Cleanup.",
	"Prefer {F2} in new code.",
}

var reasons = []string{
	"it keeps the {d} code free of {w} logic", "the {Ds} driver does not support {w}",
	"it halves the p99 latency of {F}", "it avoids a cgo dependency", "the team already knows it",
	"it makes the tests deterministic", "migrations stay reversible", "the {table} table is too large to rewrite online",
	"{Ds2} was unmaintained", "it removes a network hop on every {w} request", "the {w} semantics were easier to test",
	"it lets {T} be replaced by a fake in tests", "the old approach caused '{es}' under load",
	"it needs no extra service in docker compose", "it matches how {d} already handles {w}",
}

var fixactions = []string{
	"use t.TempDir() for each test's database", "pass the context through to {F}", "close the rows in {F}",
	"add a mutex around {S}", "raise the timeout to {dur}", "set {env} in the CI workflow",
	"run the migrations before starting {T}", "reset the {w} cache in t.Cleanup", "sort the results by {S} before comparing",
	"set SetMaxOpenConns(1) on the SQLite handle", "retry {F} on SQLITE_BUSY with backoff", "check for sql.ErrNoRows in {F}",
	"defer resp.Body.Close() in {F}", "inject the clock into {T}", "use errors.Is instead of comparing strings",
	"regenerate {f} with `{c}`", "bump {D} to {ver}", "move {F} out of the init function",
}

var causes = []string{
	"a shared {w} cache", "a data race on {S}", "time zone differences between CI and laptops", "map iteration order",
	"a missing t.Parallel guard", "port reuse between tests", "an unclosed response body in {F}", "a stale {f}",
	"the {table} fixtures not being reset", "a goroutine outliving the test", "clock skew in {T}", "a connection pool of size one",
}

var nexts = []string{
	"add tests for {F}", "wire {T} into {p}", "remove the {w} feature flag", "backfill {S}", "ask about {env} in review",
	"split {f} into smaller files", "measure {F} under load",
}

var questions = []string{
	"should {T} own the {w}?", "is {S} still needed?", "can {F} be made idempotent?", "who uses {F2}?",
	"do we still need {D}?",
}

var infras = []string{"Kubernetes", "ECS", "Fly.io", "a single VM", "Cloud Run", "AWS Lambda", "Nomad"}

var durations = []string{"100ms", "500ms", "2s", "5s", "30s", "1m", "2m", "10m", "1h"}

var globs = []string{"{p}/*.go", "{p}/**/*_test.go", "migrations/*.sql", "web/src/**/*.tsx", "{p}/testdata/*", "internal/{d}/**", "*.md", "cmd/{d}/*.go"}

// queryTemplates are agent prompts and search terms.
var queryTemplates = []string{
	"fix the flaky {d} test", "{es} {Ds}", "{T} retry", "{T} {w}", "where are fixtures loaded",
	"where is {T} constructed", "how do we run {w} migrations", "add {w} to {T}", "why does {F} return nil",
	"{F} {w} {w2}", "{S} column", "update {f}", "tests in {p}", "{cs} fails", "refactor {d} {w} handler",
	"{d} {w} timeout", "{w} {w2} {w3}", "convention for {w} names", "why did we choose {Ds}",
	"what broke {TestName}", "{env} not applied", "implement {w} pagination for {table}", "speed up {d} tests",
	"how is {d} {w} configured", "{es}", "{T}", "{F}", "{S} {table}", "{es} in {p}",
	"add a {w} endpoint for {d}", "{d} {w} {w2} bug", "{T} {F}", "fix {es} in {TestName}",
	"write tests for {F}", "{d} {w}", "{w} {w2}", "migrate {table} add {S}", "{Ds} upgrade {w}",
	"remember the {d} {w} decision", "where is {env} read",
}
