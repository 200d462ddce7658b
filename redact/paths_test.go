package redact

import "testing"

func TestPathsTextMakesProjectPathsRelativeAndHidesHomes(t *testing.T) {
	t.Parallel()
	p := Paths{Root: "/home/ana/src/shop"}
	for in, want := range map[string]string{
		"/home/ana/src/shop/api/cart.go:12:3: undefined: Total": "api/cart.go:12:3: undefined: Total",
		"cd /home/ana/src/shop && make":                         "cd . && make",
		"see /home/ana/src/shopfront/x.go":                      "see ~/src/shopfront/x.go",
		"/Users/bo/.config/tool.toml and C:\\Users\\bo\\x.txt":  "~/.config/tool.toml and ~\\x.txt",
		"/mnt/c/Users/bo/Downloads/a.csv":                       "~/Downloads/a.csv",
		"/opt/sdk/bin/cc":                                       "/opt/sdk/bin/cc",
		"/home/ana":                                             "~",
	} {
		if got := p.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Paths{Home: "/var/home/ana"}).Text("/var/home/ana/notes.md"); got != "~/notes.md" {
		t.Errorf("a home given is hidden too: %q", got)
	}
}

func TestPathsFileKeepsProjectFilesAsReferencesOnly(t *testing.T) {
	t.Parallel()
	p := Paths{Root: "/home/ana/src/shop"}
	for _, tc := range []struct {
		path, cwd, ref string
		ok             bool
	}{
		{"/home/ana/src/shop/api/cart.go", "/home/ana/src/shop/build", "api/cart.go", true},
		{"../api/cart.go", "/home/ana/src/shop/build", "api/cart.go", true},
		{"web/app.ts", "/home/ana/src/shop", "web/app.ts", true},
		{"/home/ana/.claude/plans/quiet-fox.md", "/home/ana/src/shop", "", false},
		{"/home/ana/.zshrc", "/home/ana/src/shop", "~/.zshrc", false},
		{"/tmp/scratch.py", "/home/ana/src/shop", "", false},
		{"/etc/nginx/nginx.conf", "/home/ana/src/shop", "/etc/nginx/nginx.conf", false},
	} {
		ref, ok := p.File(tc.path, tc.cwd)
		if ref != tc.ref || ok != tc.ok {
			t.Errorf("File(%q, %q) = %q, %v; want %q, %v", tc.path, tc.cwd, ref, ok, tc.ref, tc.ok)
		}
	}
}
