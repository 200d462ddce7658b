package redact

import (
	"strings"
	"testing"
)

// realisticChunks is the kind of text coding agents store: prose notes, Go
// and TypeScript code, shell transcripts, test output, lockfile and go.sum
// lines, YAML, URLs and paths. None of it is secret.
var realisticChunks = []string{
	`The store keeps one row per memory. When two agents write concurrently the
second writer retries on SQLITE_BUSY; the password field is validated before
the token is refreshed, see internal/store/sqlite/store.go:142 and the design
note in docs/architecture.md. TestStoreConcurrentWritersNeverLoseData covers it.
`,
	`func (s *Store) Put(ctx context.Context, m Memory) (ID, error) {
	if err := m.Validate(); err != nil {
		return ID{}, fmt.Errorf("put %s: %w", m.Key, err)
	}
	token := os.Getenv("CAIRN_TOKEN")
	if token == "" && s.cfg.RequireAuth {
		return ID{}, ErrUnauthenticated
	}
	res, err := s.db.ExecContext(ctx, "INSERT INTO memories(key, body, created_at) VALUES(?, ?, ?)", m.Key, m.Body, time.Now().UTC())
	if err != nil {
		return ID{}, err
	}
	n, _ := res.LastInsertId()
	return ID(n), nil
}
`,
	`$ go test ./... -run TestStore -count=1
ok  	github.com/cairn-dev/cairn/engine	0.412s
ok  	github.com/cairn-dev/cairn/index	1.337s
--- FAIL: TestRankStable (0.00s)
    rank_test.go:88: got [3 1 2], want [1 2 3]
FAIL	github.com/cairn-dev/cairn/rank	0.021s
`,
	`github.com/dustin/go-humanize v1.0.1 h1:GzkhY7T5VNhEkwH0PVJgjz+fX1rhBrR7pRT3mDkpeCY=
github.com/dustin/go-humanize v1.0.1/go.mod h1:Mu1zIs6XwVuF/gI1OepvI0qD18qycQx+mFykh5fBlto=
github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec h1:W09IVJc94icq4NjY3clb7Lk8O1qmLw/UvlTDrCeBFPDY=
`,
	`    "node_modules/@types/react": {
      "version": "18.2.45",
      "resolved": "https://registry.npmjs.org/@types/react/-/react-18.2.45.tgz",
      "integrity": "sha512-TtAxCNrlrBp8GoeEp1npd5g+d/OejJHFxS3OWmrPBMFaVQMSN0OFySozJio5BHxTuTeug00AVXVAjfDSfk+lUg==",
      "dev": true
    },
`,
	`apiVersion: apps/v1
kind: Deployment
metadata:
  name: cairn-api
  labels: {app: cairn-api, tier: backend}
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: api
          image: ghcr.io/cairn-dev/cairn@sha256:9b2a0d1c4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcdef
          env:
            - name: CAIRN_TOKEN
              valueFrom: {secretKeyRef: {name: cairn-secrets, key: token}}
`,
	`interface SearchOptions {
  query: string;
  limit?: number;
  token?: string;
}
export async function search(opts: SearchOptions): Promise<Memory[]> {
  const res = await fetch(` + "`${BASE_URL}/v1/search?q=${encodeURIComponent(opts.query)}`" + `, {
    headers: { Authorization: ` + "`Bearer ${opts.token}`" + ` },
  });
  return (await res.json()) as Memory[];
}
`,
	`commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345
Author: Dev <dev@example.com>
Date:   Mon Jan 15 10:30:00 2024 +0000

    rank: make BM25 ties stable (fixes #142, refs 9c1b7d4)

 rank/bm25.go      | 12 ++++++------
 rank/bm25_test.go | 30 ++++++++++++++++++++++++++++++
`,
	`2024-01-15T10:30:00.123Z INFO  http: request method=GET path=/v1/memories/550e8400-e29b-41d4-a716-446655440000 status=200 dur=1.2ms remote=10.0.0.12:52344
2024-01-15T10:30:01.456Z WARN  store: slow query took=812ms table=memories rows=10432
`,
	`Ideas for next session: the lexical index should tokenize camelCase
identifiers (HTTPServerConfigV2 -> http server config v2) and paths such as
/home/runner/work/cairn/cairn/internal/lexical/tokenizer.go. Keep BenchmarkIndexBuild10K
under 40ms on CI; see https://github.com/cairn-dev/cairn/issues/57#issuecomment-1893.
`,
}

func realisticText(n int, withSecrets bool) string {
	var secrets []string
	if withSecrets {
		secrets = []string{
			"export GITHUB_TOKEN=" + cat("gh", "p_", alnum(36, 700)) + "\n",
			"DATABASE_URL=postgres://app:" + alnum(16, 701) + "@db:5432/app\n",
			"aws_access_key_id = " + cat("AK", "IA", "IOSFODNN7", "EXAMPLE") + "\n",
			"curl -H 'Authorization: Bearer " + cat("ey", "JhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiJmYWtlIn0.", b64url(43, 702)) + "'\n",
			"password: " + alnum(12, 703) + "\n",
			cat("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", b64(70, 704), "\n-----END OPENSSH PRIVATE KEY-----\n"),
		}
	}
	var b strings.Builder
	for k := 0; b.Len() < n; k++ {
		b.WriteString(realisticChunks[k%len(realisticChunks)])
		if len(secrets) > 0 && k%2 == 1 {
			b.WriteString(secrets[(k/2)%len(secrets)])
		}
	}
	return b.String()[:n]
}

func TestRealisticTextHasNoSecrets(t *testing.T) {
	in := realisticText(10<<10, false)
	if out, fs := String(in); out != in {
		t.Fatalf("realistic text changed: %v\n%s", fs, out)
	}
}

func benchString(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		String(text)
	}
}

func BenchmarkString10KB(b *testing.B) { benchString(b, realisticText(10<<10, false)) }

func BenchmarkString10KBWithSecrets(b *testing.B) { benchString(b, realisticText(10<<10, true)) }
