// Package redact removes secrets from text before cairn stores it.
//
// Agents hand cairn notes, transcripts and command output; any of it may hold
// a credential. [String] returns the text with every secret replaced by
// "[REDACTED:<kind>]" and every <private>…</private> span removed, plus a
// [Finding] per removal; [Contains] reports whether String would change a
// text. Both are pure functions of their argument: safe for concurrent use,
// panic-free (also on invalid UTF-8), and String is idempotent.
//
// # Private spans
//
// <private>…</private> (tags matched case-insensitively, spanning lines)
// is removed with its tags, without a marker, as kind "private-span". Tags
// nest; a span ends at the balancing </private>; an unclosed <private>
// removes everything to the end of the text. A stray </private> is left as
// is, and so is "<private attr>": only the exact tag counts. Secrets are
// looked for in what remains.
//
// # Kinds
//
// Fixed shapes, matched at a word start (the byte before is not a letter or
// digit) and ending at a word end:
//
//	aws-access-key      AKIA, ASIA, ABIA, ACCA + 16 of [A-Z0-9]
//	gcp-api-key         AIza + 35 of [A-Za-z0-9_-]
//	gcp-oauth-secret    GOCSPX- + 24–40 of [A-Za-z0-9_-]
//	gcp-access-token    ya29. + 30+ of [A-Za-z0-9_.-] (upper and lower case)
//	github-token        ghp_ gho_ ghu_ ghs_ ghr_ + 36–255 alphanumerics;
//	                    github_pat_ + 40+ of [A-Za-z0-9_]
//	gitlab-token        glpat- glptt- glrt- gldt- + 20+ of [A-Za-z0-9_-]
//	anthropic-key       sk-ant- + 20+ of [A-Za-z0-9_-]
//	openrouter-key      sk-or- + 20+ of [A-Za-z0-9_-]
//	openai-key          sk-proj- sk-svcacct- sk-admin- + 20+ of [A-Za-z0-9_-];
//	                    sk- + 20+ of [A-Za-z0-9_-] with upper, lower and
//	                    digit, or 32+ lower-case hex (OpenAI-compatible
//	                    providers such as DeepSeek)
//	huggingface-token   hf_ + 30+ alphanumerics (upper and lower case)
//	groq-key            gsk_ + 40+ alphanumerics
//	replicate-token     r8_ + 30+ alphanumerics
//	xai-key             xai- + 40+ alphanumerics
//	perplexity-key      pplx- + 40+ alphanumerics
//	slack-token         xoxb- xoxp- xoxa- xoxr- xoxs- xoxe- xapp- + 10+ of [A-Za-z0-9-]
//	stripe-key          sk_live_ sk_test_ rk_live_ rk_test_ pk_live_ pk_test_
//	                    + 16+ alphanumerics; whsec_ + 24+ alphanumerics
//	twilio-key          SK + 32 hex (API key SID)
//	sendgrid-key        SG. + 16+ . 16+ of [A-Za-z0-9_-]
//	npm-token           npm_ + 36 alphanumerics
//	pypi-token          pypi-AgEI + 50+ of [A-Za-z0-9_-]
//	shopify-token       shpat_ shpss_ shpca_ shppa_ + 32 hex
//	digitalocean-token  dop_v1_ doo_v1_ dor_v1_ + 64 hex
//	linear-key          lin_api_ + 40+ alphanumerics
//	vault-token         hvs. hvb. + 24+ of [A-Za-z0-9_-]
//	postman-key         PMAK- + 40+ of [A-Za-z0-9-]
//	age-secret-key      AGE-SECRET-KEY-1 + 50+ of [A-Z0-9]
//	databricks-token    dapi + 32 hex
//	mailgun-key         key- + 32 of [a-z0-9] with a digit
//	docker-hub-token    dckr_pat_ + 27+ of [A-Za-z0-9_-]
//	supabase-token      sbp_ + 40 hex
//	langsmith-key       lsv2_pt_ lsv2_sk_ + 32+ of [0-9a-f_]
//	tavily-key          tvly- + 32+ of [A-Za-z0-9_-] with upper, lower and digit
//	cairn-token         cairn_ + 52 of [a-z2-7] (cairn token create)
//	newrelic-key        NRAK- + 27 of [A-Z0-9]
//	telegram-bot-token  a bot id of 6–12 digits, ':', 35 of [A-Za-z0-9_-]
//	                    with upper and lower case; also after "bot" in
//	                    https://api.telegram.org/bot<token>/…
//	jwt                 eyJ… . 10+ . any, base64url segments (up to five: JWE)
//
// Structures:
//
//	private-key         a PEM block whose label contains "PRIVATE KEY"
//	                    (-----BEGIN [RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP ]
//	                    PRIVATE KEY[ BLOCK]-----), from BEGIN through the END
//	                    line, or to the end of the text when there is no END;
//	                    also the value of a private_key / privateKey
//	                    assignment (the "private_key" of a GCP service-account
//	                    JSON file, with its \n escapes)
//	url-credentials     the user:password of scheme://user:password@host; the
//	                    scheme, '@' and host are kept:
//	                    postgres://[REDACTED:url-credentials]@db:5432/x.
//	                    A user without a password (ssh://git@host) is kept.
//	slack-webhook       the path after https://hooks.slack.com/services/
//	                    (also /workflows/, /triggers/)
//	discord-webhook     the path after https://discord.com/api/webhooks/
//	auth-header         the credentials of an Authorization (or
//	                    Proxy-Authorization) value: "Bearer x", "Basic x",
//	                    "token x", …; for Digest/AWS4-HMAC-SHA256/OAuth the
//	                    whole parameter list
//	bearer-token        "Bearer x" anywhere else, when x has 16+ bytes of
//	                    [A-Za-z0-9._~+/=-] with a letter and a digit
//	cli-password        the value of a password flag on a command line:
//	                    mysql/mysqldump/mariadb -pVALUE (attached),
//	                    redis-cli -a VALUE, sshpass -p VALUE, docker/podman/
//	                    helm … login -p VALUE, curl -u / --user USER:VALUE,
//	                    --password VALUE (any word) and --token, --secret,
//	                    --api-key … VALUE (a word that looks like a
//	                    credential, see below); not a next word that starts
//	                    with '-' (--password-stdin) or is a placeholder or
//	                    a prose word (flag, option, …). --key=VALUE is an
//	                    assignment.
//	netrc-password      the word after "password" in a .netrc entry, when
//	                    "login WORD" comes right before it (same line or not)
//	pgpass-password     the last field of a .pgpass line
//	                    HOST:PORT:DATABASE:USER:PASSWORD (PORT digits or *,
//	                    no blanks, \: escapes)
//
// Assignments: a key, optionally quoted, then '=', ':', ":=" or "=>", then
// a value, quoted or bare. The key is matched case-insensitively, ignoring
// '_', '-' and '.', on how it ends, so DB_PASSWORD, dbPassword, PGPASSWORD,
// spring.datasource.password and "X-API-Key" all count:
//
//	aws-secret-key      …secret_access_key, aws_secret_key
//	azure-storage-key   …AccountKey, …SharedAccessKey (connection strings)
//	private-key         …private_key
//	auth-header         …authorization (see above)
//	password-assignment …password, …passwd, …pwd, …passphrase, …passcode,
//	                    and …_pass / …Pass after another word (DB_PASS)
//	secret-assignment   …secret, …token, …api_key / apikey, …secret_key,
//	                    …access_key, …signing_key, …encryption_key,
//	                    …master_key, …client_key, …auth_key, …signature,
//	                    and the keys sig and auth
//
// Quoted values (", ', `; backslash escapes honoured; an unclosed quote runs
// to the end of the line) are redacted between the quotes. Bare values run
// to whitespace or one of " ' ` , ; ) ] } < > (and '&' in a query string or
// before another name=); after a ';' (connection strings such as
// Server=…;User Id=…;Password=p w;) they run to the next ';', blanks
// included. How much of a bare value is trusted depends on the
// shape of the assignment:
//
//   - KEY=value with nothing around '=' (env files, --flag=value, query
//     strings): any value.
//   - key: value at the start of a line (YAML, headers, "- key: value"):
//     the rest of the line, up to a " #" comment, unless it starts with a
//     YAML block, alias, tag or flow marker (| > * & ! { [) or is an
//     identifier followed by a ',' that ends the line (a Go/JS field
//     "Token: tok,").
//   - anything else (code "key = value", "key := value", "key => value", a
//     "key: value" in mid-line, a JSON key with a bare value): only values
//     of 6+ bytes holding a digit or a symbol other than '_'.
//
// A value is never redacted when it is a placeholder: empty or a single
// byte; "[REDACTED…"; a reference ($VAR, ${VAR}, $(cmd), %VAR% but not
// percent-encoded bytes such as sig=%2Fab…%3D, {{ … }},
// #{…}, <token>, <your key>); a mask of only x, X, *, ., -, _ (xxx, ***,
// xxxx-xxxx); a value containing "...", "…" or "***" (a display hint such as
// sk-...abcd); one starting with "your" or "replace" or ending in "_here" /
// "-here"; or one of changeme, change_me, change-me, changeit, placeholder,
// redacted, example, dummy, fake, todo, tbd, replaceme, replace_me, none,
// null, nil, undefined, true, false (case-insensitive). "changeme" and
// "example" are well-known defaults, not secrets. Nor is a bare value
// redacted when it is code or a type rather than a literal: a dotted path
// (os.environ, cfg.Password, process.env.TOKEN!, req.headers?.auth), a call
// or index (getToken(), os.Getenv("X"), env["X"]), a generic (Option<String>),
// a type or prose word (string, str, bool, int, required, the, is, …), the
// key's own name (apiKey: apiKey, password=password), a number of fewer than
// six digits (max_token: 100), or, for …pwd keys, a directory
// (PWD=/home/x).
//
// Generic secrets:
//
//	high-entropy        a run of 32+ bytes of [A-Za-z0-9+/=_-] (split at an
//	                    '=' that is not trailing padding, and with leading
//	                    -_/+= and trailing -_/+ trimmed) that has an upper-case
//	                    letter, a lower-case letter and a digit, is not only
//	                    hex digits and '-', has Shannon entropy of at least
//	                    4.0 bits per byte, and has at most half of its bytes
//	                    in word-like stretches ([A-Z]?[a-z]{3,}).
//
// The entropy bar alone does not separate random tokens (typically 4.2–5.5
// bits per byte at 32–64 bytes) from camelCase identifiers and paths
// (3.4–4.6): it only drops repetitive strings (a1B2a1B2…), and the
// "wordiness" bar does the real work: random base62/base64 scores 0.0–0.4,
// identifiers, paths and prose 0.6–1.0. About 1% of random 32-byte tokens
// look wordy enough to be missed; known token shapes are caught above.
//
// Beyond "not only hex", these runs are never high-entropy: a digest after
// or starting with h1:, md5, sha1, sha224, sha256, sha384, sha512, sha3-256,
// sha3-512, blake2b or blake3 followed by ':', '-' or '=' (go.sum lines,
// SRI "sha512-…" integrity strings in package-lock.json and <script> tags,
// "sha256:" image digests); base64 after "base64," (data: URIs); SSH public
// key bodies (AAAAB3NzaC1…, AAAAC3NzaC1…, AAAAE2VjZHNh…); anything inside a
// non-private PEM block (certificates, public keys); anything inside a URL
// ("scheme://" with no blank since), so document ids in URL paths stay,
// while credentials in URLs are caught by url-credentials and sensitive query
// parameters (?token=, &sig=, X-Amz-Signature=) by the assignment rules.
// Nor is base64 of printable text in which no secret is found (encoded
// prose, JSON fixtures, a kubeconfig's certificate-authority-data): such a
// run is decoded and scanned, and stays only when the decoded text is
// clean. Base64 of a private key or of "PASSWORD=…" is redacted.
//
// Look-alikes therefore left alone include git SHAs (7–40 hex), SHA-256
// digests, UUIDs, Go pseudo-versions (v0.0.0-20230129092748-24d4a6f8daec),
// semver, IP addresses, timestamps, Kubernetes and npm names, CSS colours,
// long paths, URLs without credentials, camelCase identifiers, and prose
// that only mentions a password or token.
//
// # Findings and overlaps
//
// Overlapping detections merge into one span whose kind is the most
// specific one (fixed shapes and structures, then auth headers, then
// assignments, then high-entropy): "token=ghp_…" yields github-token.
// Because redacting one secret changes the context of its neighbours,
// String scans its own result again until nothing more is found (in
// practice once); that is what makes it idempotent.
//
// If String ever met an internal error it would fail closed, replacing the
// whole text with "[REDACTED:redaction-error]".
//
// # Cost
//
// One pass over the bytes stops only at anchors (the first byte of a known
// prefix at a word start, '=', ':', '-', a line break); a second
// table-driven pass looks at runs of 32+ token bytes. Every step is linear
// in the text: a candidate's body is read once even when candidates
// overlap ("sk-sk-sk-…"), and look-backs are bounded or cached, so 1 MiB of
// crafted input takes milliseconds (BenchmarkStringAdversarial). Ordinary 10 KB of code and prose
// takes about 35–80 µs on a small, busy 2-core machine, without allocating;
// text with secrets costs two to three times that, as the result is scanned
// again.
package redact
