package main

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// zipf samples indexes 0..n-1 with probability proportional to
// 1/(rank+q)^s (a Zipf-Mandelbrot law): q flattens the head so that the most
// common item is frequent but not overwhelming.
type zipf struct {
	cdf []float64
}

func newZipf(n int, s, q float64) *zipf {
	z := &zipf{cdf: make([]float64, n)}
	sum := 0.0
	for i := 0; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1)+q, s)
		z.cdf[i] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	return z
}

func (z *zipf) sample(r *rand.Rand) int {
	u := r.Float64()
	i := sort.SearchFloat64s(z.cdf, u)
	if i >= len(z.cdf) {
		i = len(z.cdf) - 1
	}
	return i
}

// class is one kind of vocabulary item (types, functions, files, words …)
// with its items in popularity order and a Zipf sampler over them.
type class struct {
	items []string
	z     *zipf
}

func newClass(items []string, s, q float64) *class {
	return &class{items: items, z: newZipf(len(items), s, q)}
}

// pick draws an item: by popularity, or uniformly (mostly rare items) when
// rare is set.
func (c *class) pick(r *rand.Rand, rare bool) string {
	if rare {
		return c.items[r.IntN(len(c.items))]
	}
	return c.items[c.z.sample(r)]
}

// vocab is a project's vocabulary, built deterministically from a seed.
type vocab struct {
	classes map[string]*class
	// deps maps a dependency's module path to its short name.
	depShort map[string]string
}

// Domains of the imaginary project: packages, tables and types are built
// from them.
var domains = []string{
	"auth", "billing", "invoice", "payment", "user", "account", "session", "cache",
	"queue", "order", "search", "index", "notification", "email", "webhook", "report",
	"export", "importer", "config", "migration", "scheduler", "worker", "storage", "upload",
	"audit", "tenant", "subscription", "pricing", "inventory", "shipping", "catalog", "cart",
	"checkout", "token", "permission", "role", "policy", "ratelimit", "metrics", "tracing",
	"logging", "gateway", "router", "api", "graphql", "grpc", "sync", "backup",
	"document", "render", "template", "featureflag", "experiment", "analytics", "ledger", "refund",
	"coupon", "tax", "fraud", "kyc", "onboarding", "profile", "settings", "admin",
	"dashboard", "feed", "comment", "media", "thumbnail", "geo", "currency", "locale",
	"i18n", "health", "deploy", "cli", "sdk", "plugin", "workflow", "approval",
}

// Entities: the nouns types and tables are named after.
var entities = []string{
	"invoice", "line_item", "customer", "payment", "charge", "refund", "user", "account",
	"session", "token", "order", "cart", "product", "price", "plan", "subscription",
	"tenant", "team", "member", "role", "permission", "policy", "event", "message",
	"notification", "email", "webhook", "delivery", "job", "task", "batch", "report",
	"export", "upload", "file", "document", "page", "comment", "thread", "attachment",
	"address", "shipment", "warehouse", "stock", "coupon", "discount", "tax_rate", "ledger_entry",
	"transfer", "payout", "balance", "audit_log", "api_key", "rate_limit", "feature_flag", "experiment",
	"metric", "span", "trace", "alert", "incident", "schedule", "cron_job", "migration",
	"snapshot", "backup", "cache_entry", "query", "index", "shard", "node", "cluster",
	"region", "zone", "config", "setting", "template", "render_job", "thumbnail", "media_asset",
	"profile", "preference", "device", "location", "currency", "exchange_rate", "locale", "translation",
	"workflow", "step", "approval", "review", "retry", "lease", "lock", "cursor",
}

var typeSuffixes = []string{
	"Service", "Store", "Repository", "Handler", "Client", "Manager", "Config", "Options",
	"Worker", "Cache", "Validator", "Builder", "Loader", "Resolver", "Provider", "Factory",
	"Event", "Request", "Response", "Error", "Queue", "Processor", "Scheduler", "Encoder",
	"Decoder", "Writer", "Reader", "Registry", "Middleware", "Controller", "Policy", "Limiter",
	"", "", "", "",
}

var typePrefixes = []string{
	"Batch", "Cached", "Default", "Legacy", "Remote", "Local", "Async", "Pending",
	"Scheduled", "Signed", "Partial", "Bulk", "Stripe", "Postgres", "SQLite", "Redis",
	"Mock", "Fake", "InMemory", "Retrying",
}

var verbs = []string{
	"New", "Get", "Load", "Parse", "Validate", "Handle", "Build", "Fetch",
	"Sync", "Apply", "Render", "Encode", "Decode", "Resolve", "Register", "Flush",
	"Retry", "Compute", "Normalize", "Merge", "Open", "Close", "Start", "Stop",
	"Reconcile", "Refresh", "Emit", "Publish", "Consume", "Migrate", "Seed", "Scan",
	"Find", "List", "Create", "Update", "Delete", "Upsert", "Cancel", "Schedule",
	"Enqueue", "Dequeue", "Send", "Verify", "Sign", "Hash", "Check", "Ensure",
	"Must", "Try", "Init", "Setup", "Teardown", "Wrap", "Format", "Marshal",
}

var funcSuffixes = []string{
	"", "", "", "", "ByID", "ForTenant", "WithRetry", "Context", "Batch", "All", "Async", "Once", "FromRequest", "ToJSON",
}

var fields = []string{
	"id", "created_at", "updated_at", "deleted_at", "status", "retry_count", "external_id", "tenant_id",
	"user_id", "amount_cents", "currency", "due_date", "paid_at", "expires_at", "version", "checksum",
	"attempt", "last_error", "priority", "scheduled_for", "locked_until", "owner_id", "parent_id", "sort_order",
	"is_active", "metadata", "payload", "idempotency_key", "region", "locale", "timezone", "source",
	"kind", "state", "reason", "processed_at", "batch_id", "shard_key", "hash", "total",
}

var fileNames = []string{
	"service.go", "store.go", "handler.go", "handler_test.go", "service_test.go", "store_test.go",
	"client.go", "config.go", "worker.go", "queue.go", "cache.go", "errors.go", "types.go",
	"validate.go", "retry.go", "middleware.go", "routes.go", "model.go", "repository.go",
	"query.sql", "schema.sql", "fixtures.go", "testdata/fixtures.go", "export_test.go",
	"doc.go", "options.go", "encode.go", "decode.go", "sync.go", "migrate.go", "main.go",
}

var topDirs = []string{"internal", "internal", "internal", "pkg", "cmd", "services", "internal/platform", "lib"}

// Technical English words, most common first (before shuffling the tail).
var words = []string{
	"test", "error", "config", "timeout", "retry", "cache", "request", "response",
	"handler", "query", "schema", "migration", "index", "lock", "transaction", "connection",
	"pool", "context", "deadline", "goroutine", "channel", "mutex", "race", "fixture",
	"mock", "stub", "flaky", "build", "deploy", "release", "version", "module",
	"package", "import", "export", "logging", "metrics", "tracing", "span", "latency",
	"throughput", "batch", "queue", "worker", "job", "event", "webhook", "payload",
	"header", "session", "cookie", "auth", "permission", "role", "tenant", "user",
	"account", "invoice", "payment", "order", "email", "template", "render", "validation",
	"serialization", "json", "yaml", "proto", "endpoint", "route", "middleware", "client",
	"server", "proxy", "tls", "certificate", "environment", "variable", "flag", "feature",
	"rollout", "rollback", "backfill", "pagination", "cursor", "offset", "limit", "sort",
	"filter", "search", "snapshot", "backup", "restore", "upload", "download", "file",
	"path", "directory", "signal", "shutdown", "startup", "health", "probe", "readiness",
	"container", "image", "docker", "kubernetes", "helm", "terraform", "pipeline", "workflow",
	"lint", "format", "vet", "coverage", "benchmark", "profile", "allocation", "memory",
	"cpu", "leak", "panic", "recover", "nil", "pointer", "interface", "struct",
	"generic", "slice", "map", "closure", "callback", "promise", "async", "component",
	"hook", "state", "store", "reducer", "style", "layout", "router", "api",
	"rest", "graphql", "resolver", "mutation", "subscription", "scheduler", "cron", "ttl",
	"expiry", "clock", "timezone", "timestamp", "date", "duration", "encoding", "unicode",
	"locale", "translation", "currency", "rounding", "decimal", "float", "integer", "overflow",
	"precision", "idempotency", "dedup", "hash", "checksum", "encryption", "compression", "gzip",
	"stream", "buffer", "reader", "writer", "parser", "lexer", "tokenizer", "serializer",
	"database", "sqlite", "postgres", "redis", "kafka", "table", "column", "row",
	"constraint", "foreign", "key", "primary", "unique", "default", "nullable", "trigger",
	"view", "replica", "shard", "partition", "vacuum", "wal", "checkpoint", "fsync",
	"deadlock", "contention", "throttle", "backoff", "jitter", "circuit", "breaker", "fallback",
	"rate", "quota", "alert", "incident", "oncall", "dashboard", "log", "warning",
	"debug", "trace", "sampling", "exporter", "collector", "agent", "sidecar", "gateway",
	"ingress", "dns", "port", "socket", "http", "grpc", "websocket", "sse",
	"upstream", "downstream", "dependency", "vendor", "checksum", "sum", "lockfile", "monorepo",
	"workspace", "generator", "codegen", "scaffold", "snapshot", "golden", "assertion", "helper",
	"setup", "teardown", "cleanup", "parallel", "sequential", "ordering", "determinism", "seed",
	"random", "uuid", "ulid", "slug", "normalization", "sanitization", "escaping", "injection",
	"csrf", "cors", "oauth", "jwt", "scope", "claim", "audience", "issuer",
	"refresh", "expiration", "revocation", "audit", "compliance", "gdpr", "retention", "archival",
	"purge", "soft", "delete", "tombstone", "compaction", "reindex", "warmup", "prefetch",
	"lazy", "eager", "preload", "n+1", "join", "subquery", "cte", "explain",
	"plan", "statistics", "analyze", "bloat", "autovacuum", "connection_pool", "keepalive", "idle",
}

var errorsList = []string{
	"database is locked", "context deadline exceeded", "connection refused",
	"dial tcp 127.0.0.1:5432: connect: connection refused",
	"runtime error: invalid memory address or nil pointer dereference",
	"too many open files", "undefined: {F}", "cannot use {S} (variable of type string) as int value in argument to {F}",
	"pq: duplicate key value violates unique constraint \"{table}_pkey\"", "unexpected EOF", "permission denied",
	"listen tcp :8080: bind: address already in use", "x509: certificate signed by unknown authority",
	"read tcp: i/o timeout", "open {f}: no such file or directory", "index out of range [3] with length 3",
	"fatal error: concurrent map writes", "ERROR: deadlock detected (SQLSTATE 40P01)", "WARNING: DATA RACE",
	"sql: no rows in result set", "sql: database is closed",
	"json: cannot unmarshal string into Go struct field {T}.{S} of type int", "import cycle not allowed",
	"missing go.sum entry for module providing package {D}", "context canceled", "http: Server closed",
	"net/http: TLS handshake timeout", "401 Unauthorized", "429 Too Many Requests", "502 Bad Gateway",
	"OOMKilled", "no space left on device", "Cannot find module '{w}'",
	"TypeError: Cannot read properties of undefined (reading '{S}')",
	"relation \"{table}\" does not exist", "column \"{S}\" does not exist", "SQLITE_BUSY: database is locked",
	"panic: test timed out after 10m0s", "panic: send on closed channel",
	"fatal error: all goroutines are asleep - deadlock!", "panic: assignment to entry in nil map",
	"go: updates to go.mod needed", "exec format error", "{F} redeclared in this block",
	"ambiguous import: found package {D} in multiple modules", "sql: transaction has already been committed or rolled back",
	"http2: stream closed", "EOF", "invalid character '<' looking for beginning of value",
	"ERR_MODULE_NOT_FOUND", "mismatched types int64 and int", "{T} does not implement {T2} (missing method {M})",
}

var errorsShort = []string{
	"database is locked", "context deadline exceeded", "connection refused", "nil pointer dereference",
	"too many open files", "address already in use", "concurrent map writes", "deadlock detected",
	"no rows in result set", "unexpected EOF", "permission denied", "certificate signed by unknown authority",
	"import cycle not allowed", "test timed out", "send on closed channel", "duplicate key value",
	"relation does not exist", "i/o timeout", "429 Too Many Requests", "DATA RACE",
	"SQLITE_BUSY", "TLS handshake timeout", "missing go.sum entry", "OOMKilled", "502 Bad Gateway",
}

var commands = []string{
	"go test ./...", "go test -race ./{p}/...", "go test -run {TestName} ./{p}", "go test -count=1 ./...",
	"go vet ./...", "golangci-lint run", "make lint", "make test", "make migrate", "go generate ./...",
	"sqlc generate", "buf generate", "docker compose up -d postgres", "docker compose run --rm migrate",
	"npm run build", "npm test", "pnpm test -- {w}", "npx tsc --noEmit", "go build ./cmd/{d}",
	"go run ./cmd/{d} serve", "goose up", "migrate -path migrations up", "kubectl rollout restart deploy/{d}",
	"terraform plan", "git bisect run make test", "go mod tidy", "pytest -k {w}", "make e2e",
	"go test -bench . ./{p}", "go tool pprof cpu.out", "docker build -t {d} .", "make proto",
	"go work sync", "npx playwright test", "make seed", "./scripts/reset-db.sh", "go test -short ./...",
}

var commandsShort = []string{
	"go test", "go test race", "go vet", "golangci-lint", "make lint", "make test", "make migrate",
	"go generate", "sqlc generate", "buf generate", "docker compose", "npm run build", "tsc noEmit",
	"goose up", "terraform plan", "go mod tidy", "make e2e", "pprof", "make proto", "make seed",
	"playwright", "kubectl rollout",
}

var deps = []string{
	"github.com/jackc/pgx/v5", "modernc.org/sqlite", "github.com/mattn/go-sqlite3", "go.uber.org/zap",
	"github.com/rs/zerolog", "github.com/spf13/cobra", "github.com/spf13/viper", "github.com/stretchr/testify",
	"github.com/golang/mock", "github.com/google/uuid", "google.golang.org/grpc", "google.golang.org/protobuf",
	"github.com/redis/go-redis/v9", "github.com/segmentio/kafka-go", "github.com/aws/aws-sdk-go-v2", "github.com/stripe/stripe-go/v76",
	"go.opentelemetry.io/otel", "github.com/prometheus/client_golang", "github.com/go-chi/chi/v5", "github.com/gin-gonic/gin",
	"github.com/labstack/echo/v4", "entgo.io/ent", "gorm.io/gorm", "github.com/pressly/goose/v3",
	"github.com/golang-migrate/migrate/v4", "github.com/sqlc-dev/sqlc", "github.com/hashicorp/go-retryablehttp", "github.com/cenkalti/backoff/v4",
	"golang.org/x/sync", "golang.org/x/time", "github.com/nats-io/nats.go", "github.com/riverqueue/river",
	"github.com/hibiken/asynq", "github.com/robfig/cron/v3", "github.com/go-playground/validator/v10", "github.com/golang-jwt/jwt/v5",
	"github.com/coreos/go-oidc/v3", "github.com/sendgrid/sendgrid-go", "github.com/minio/minio-go/v7", "github.com/testcontainers/testcontainers-go",
	"react", "next", "vite", "vitest", "zod", "prisma", "tailwindcss", "eslint", "playwright", "jest",
}

var agents = []string{"claude", "codex", "cursor", "aider", "copilot", "gemini"}

var plainTags = []string{
	"testing", "flaky", "perf", "security", "migration", "ci", "build", "db", "api", "refactor",
	"bug", "docs", "release", "oncall", "tech-debt", "frontend", "backend", "infra", "observability",
	"dx", "deps", "concurrency", "data", "sql", "cache", "auth", "billing", "search",
}

var methods = []string{
	"Run", "Close", "Flush", "Get", "Put", "Do", "Handle", "Serve", "Apply", "Validate", "Next", "Lookup", "Finalize", "Commit", "Rollback",
}

func camel(snake string) string {
	var b strings.Builder
	for _, p := range strings.Split(snake, "_") {
		if p == "" {
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

func shuffle(r *rand.Rand, xs []string) []string {
	out := append([]string(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// uniq generates distinct strings with gen until it has n or gives up.
func uniq(n int, gen func() string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for tries := 0; len(out) < n && tries < n*20; tries++ {
		s := gen()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func newVocab(seed uint64) *vocab {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	pickOf := func(xs []string) string { return xs[r.IntN(len(xs))] }
	ent := func() string { return pickOf(entities) }

	doms := shuffle(r, domains)
	pkgs := uniq(320, func() string {
		d := pickOf(doms)
		switch r.IntN(4) {
		case 0:
			return pickOf(topDirs) + "/" + d + "/" + strings.ReplaceAll(ent(), "_", "")
		default:
			return pickOf(topDirs) + "/" + d
		}
	})
	types := uniq(1800, func() string {
		t := camel(ent()) + pickOf(typeSuffixes)
		if r.IntN(10) < 3 {
			t = pickOf(typePrefixes) + t
		}
		return t
	})
	funcs := uniq(1500, func() string {
		return pickOf(verbs) + camel(ent()) + pickOf(funcSuffixes)
	})
	snakes := uniq(900, func() string {
		e := ent()
		switch r.IntN(3) {
		case 0:
			return pickOf(fields)
		default:
			return e + "_" + pickOf(fields)
		}
	})
	tables := uniq(200, func() string {
		e := ent()
		if r.IntN(4) == 0 {
			return e + "_" + plural(pickOf(entities))
		}
		return plural(e)
	})
	envs := uniq(250, func() string {
		parts := []string{strings.ToUpper(pickOf(doms)), strings.ToUpper(pickOf([]string{
			"retry_limit", "timeout", "url", "addr", "debug", "log_level", "max_conns", "batch_size",
			"enabled", "region", "bucket", "dsn", "workers", "queue_name", "ttl", "sample_rate",
		}))}
		return strings.Join(parts, "_")
	})
	files := uniq(2200, func() string {
		switch r.IntN(10) {
		case 0:
			return "web/src/components/" + camel(ent()) + pickOf([]string{"Table", "Form", "List", "Modal", "Card", "Page"}) + ".tsx"
		case 1:
			return "migrations/" + padNum(r.IntN(240)+1, 4) + "_" + pickOf([]string{"add", "drop", "alter", "create", "backfill"}) + "_" + ent() + ".sql"
		case 2:
			return "web/src/hooks/use" + camel(ent()) + ".ts"
		default:
			return pickOf(pkgs) + "/" + pickOf([]string{strings.ReplaceAll(ent(), "_", ""), ent()}) + pickOf([]string{".go", "_test.go", ".go", ".go"})
		}
	})
	for i := 0; i < 400; i++ { // plain file names inside packages
		files = append(files, pickOf(pkgs)+"/"+pickOf(fileNames))
	}
	files = shuffle(r, dedupe(files))
	// Words: keep the head in its natural order of commonness, shuffle the
	// tail so that rare words differ between vocabularies.
	ws := append([]string(nil), words[:24]...)
	ws = append(ws, shuffle(r, words[24:])...)
	ws = dedupe(ws)

	depShort := map[string]string{}
	for _, d := range deps {
		s := d
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			last := s[i+1:]
			if len(last) >= 2 && last[0] == 'v' && last[1] >= '0' && last[1] <= '9' {
				s = s[:i]
				i = strings.LastIndexByte(s, '/')
			}
			s = s[i+1:]
		}
		depShort[d] = strings.TrimPrefix(s, "go-")
	}

	var tags []string
	for _, a := range agents {
		tags = append(tags, "agent:"+a)
	}
	for _, s := range []string{"backend", "frontend", "ci", "db", "infra", "api", "tests"} {
		tags = append(tags, "scope:"+s)
	}
	for _, l := range []string{"go", "ts", "sql", "python", "yaml"} {
		tags = append(tags, "lang:"+l)
	}
	tags = append(tags, plainTags...)
	for _, d := range doms {
		tags = append(tags, "area:"+d)
	}
	tags = shuffle(r, tags)

	v := &vocab{classes: map[string]*class{}, depShort: depShort}
	v.classes["d"] = newClass(doms, 1.0, 3)
	v.classes["p"] = newClass(shuffle(r, pkgs), 1.0, 4)
	v.classes["T"] = newClass(shuffle(r, types), 1.0, 6)
	v.classes["F"] = newClass(shuffle(r, funcs), 1.0, 6)
	v.classes["S"] = newClass(shuffle(r, snakes), 1.0, 5)
	v.classes["table"] = newClass(shuffle(r, tables), 1.0, 3)
	v.classes["env"] = newClass(shuffle(r, envs), 1.0, 3)
	v.classes["f"] = newClass(files, 1.0, 8)
	v.classes["w"] = newClass(ws, 1.0, 2.5)
	v.classes["e"] = newClass(shuffle(r, errorsList), 0.9, 2)
	v.classes["es"] = newClass(shuffle(r, errorsShort), 0.9, 2)
	v.classes["c"] = newClass(shuffle(r, commands), 1.0, 2)
	v.classes["cs"] = newClass(shuffle(r, commandsShort), 1.0, 2)
	v.classes["D"] = newClass(shuffle(r, deps), 1.0, 3)
	v.classes["M"] = newClass(shuffle(r, methods), 1.0, 2)
	v.classes["tag"] = newClass(tags, 1.0, 4)
	v.classes["agent"] = newClass(agents, 1.2, 0.5)
	return v
}

// plural is the English plural of a snake_case noun.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ey"):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

func padNum(n, width int) string {
	s := itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
