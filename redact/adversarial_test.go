package redact

import (
	"strings"
	"testing"
)

// adversarialPatterns, repeated to fill an input, put a candidate at every
// few bytes whose examination could run to the end of the text: a known
// prefix whose body is the rest of the input ("sk-sk-sk-…"), separators,
// URL schemes, PEM headers without an END, JWT and bearer anchors, private
// tags, command-line flags, .netrc and .pgpass shapes, base64 runs.
var adversarialPatterns = []string{
	"sk-", "sk-a", "ghp_", "hf_a", "ya29.", "SG.", "eyJ", "eyJa.", "Bearer ", "bearer a",
	"a=", "a:", "token=", "token: ", "password ", "-p", " -p ", "--password ", "-----BEGIN ",
	"-----BEGIN PRIVATE KEY-----", "https://", "x:// ", "https://a:b@", "<private>", "</private>",
	"aB3x", "aB3xaB3xaB3xaB3xaB3xaB3xaB3xaB3x=", "Zm9v", "%2F", "key-", "dapi", "123456789:",
	"machine a login b ", "a:1:b:c:", "Authorization: ", "mysql -p", "curl -u a:", ";Password=",
}

// adversarialInput repeats pattern to about 1 MiB.
func adversarialInput(pattern string) string {
	return strings.Repeat(pattern, (1<<20)/len(pattern)+1)
}

// TestAdversarialInputsFinish runs String over 1 MiB of each pattern. The
// scan is linear: each input takes milliseconds. A scan that re-examined
// the rest of the text at each candidate would take minutes per input and
// the test would not finish; BenchmarkStringAdversarial measures the cost.
func TestAdversarialInputsFinish(t *testing.T) {
	for _, p := range adversarialPatterns {
		in := adversarialInput(p)
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
	}
}

func BenchmarkStringAdversarial(b *testing.B) {
	for _, p := range adversarialPatterns {
		b.Run(strings.TrimSpace(p), func(b *testing.B) { benchString(b, adversarialInput(p)) })
	}
}
