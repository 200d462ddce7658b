package webui

import (
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string, gz bool) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if gz {
		req.Header.Set("Accept-Encoding", "br, gzip;q=0.8")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestThePageNamesItsProjectEscaped(t *testing.T) {
	t.Parallel()
	h := New(Options{Project: `p"><script>alert(1)</script>`})
	rec := get(t, h, http.MethodGet, "/", false)
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, `content="p&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Fatalf("GET / answered %d; the project is not escaped in:\n%s", rec.Code, body)
	}
	if strings.Contains(body, "{{project}}") {
		t.Error("the placeholder is left in the page")
	}
	if got := rec.Header().Get("Content-Security-Policy"); got != CSP {
		t.Errorf("Content-Security-Policy = %q", got)
	}
	if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
}

func TestFilesAreSentGzippedWhenAccepted(t *testing.T) {
	t.Parallel()
	h := New(Options{})
	plain := get(t, h, http.MethodGet, "/ui/app.js", false)
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || !strings.HasPrefix(plain.Header().Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET /ui/app.js: %d %v", plain.Code, plain.Header())
	}
	rec := get(t, h, http.MethodGet, "/ui/app.js", true)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET /ui/app.js with gzip accepted: Content-Encoding %q", rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil || string(b) != plain.Body.String() {
		t.Fatalf("the gzipped file differs from the plain one (%v)", err)
	}
	if rec := get(t, h, http.MethodHead, "/ui/style.css", false); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD /ui/style.css: %d with %d bytes", rec.Code, rec.Body.Len())
	}
}

// Bad requests tried: a missing file, a path that climbs out, the page
// under /ui/, and a write.
func TestBadRequestsAreRefused(t *testing.T) {
	t.Parallel()
	h := New(Options{})
	for _, p := range []string{"/ui/missing.js", "/ui/../webui.go", "/ui/index.html", "/other", "/ui/"} {
		if rec := get(t, h, http.MethodGet, p, false); rec.Code != 404 {
			t.Errorf("GET %s answered %d, want 404", p, rec.Code)
		}
	}
	if rec := get(t, h, http.MethodPost, "/", false); rec.Code != 405 {
		t.Errorf("POST / answered %d, want 405", rec.Code)
	}
}

// The budget of the assets: at most 300 KB sent gzipped.
func TestAssetsFitTheirBudget(t *testing.T) {
	t.Parallel()
	raw, gz := New(Options{}).Sizes()
	t.Logf("assets: %d bytes, %d gzipped", raw, gz)
	if gz > 300_000 {
		t.Errorf("the assets are %d bytes gzipped, over the budget of 300 KB", gz)
	}
}

// Memory text must reach the page as text only: no script of the page
// parses strings as HTML, and none loads anything from elsewhere.
func TestScriptsNeverParseHTMLNorReachOut(t *testing.T) {
	t.Parallel()
	bad := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function|https?://`)
	n := 0
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") && !strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".css") {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(string(b), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d uses %s", p, i+1, m)
			}
		}
		return nil
	})
	if err != nil || n < 4 {
		t.Fatalf("read %d assets: %v", n, err)
	}
}

// The page starts the request of its first list with itself, for its
// project only, at the address the script asks for (app.js builds the
// same query; the browser test checks that one request is made).
func TestThePagePreloadsItsFirstList(t *testing.T) {
	t.Parallel()
	body := get(t, New(Options{Project: "a b/c"}), http.MethodGet, "/", false).Body.String()
	want := `<link rel="preload" as="fetch" crossorigin="anonymous" id="first-page" href="/api/projects/a%20b%2Fc/memories?sort=created&amp;global=false&amp;limit=51&amp;offset=0&amp;skip_total=true">`
	if !strings.Contains(body, want) {
		t.Errorf("the page does not preload its first list:\n%s", body)
	}
	if body := get(t, New(Options{}), http.MethodGet, "/", false).Body.String(); strings.Contains(body, `rel="preload"`) || strings.Contains(body, "{{") {
		t.Errorf("a page without a project preloads something:\n%s", body)
	}
}
