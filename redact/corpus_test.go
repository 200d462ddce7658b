package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Fake secrets are built at run time from parts so that no string in this
// file looks like a live credential to a secret scanner. They are
// shape-correct (right prefix, alphabet and length) and obviously fake: the
// bodies are seeded pseudo-random or repeated patterns.

const b62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// rnd returns n pseudo-random bytes from alphabet, deterministic per seed.
func rnd(alphabet string, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	for b.Len() < n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func alnum(n int, seed uint64) string { return rnd(b62, n, seed) }
func hexs(n int, seed uint64) string  { return rnd("0123456789abcdef", n, seed) }
func b64(n int, seed uint64) string   { return rnd(b62+"+/", n, seed) }
func b64url(n int, seed uint64) string {
	return rnd(b62+"-_", n, seed)
}

// mixed returns a body with upper, lower and digit guaranteed.
func mixed(n int, seed uint64) string { return "aB3" + alnum(n-3, seed) }

func cat(parts ...string) string { return strings.Join(parts, "") }

type secretCase struct {
	name   string
	text   string
	kind   string
	secret string // must be gone from the output
}

func secretCases() []secretCase {
	var cs []secretCase
	add := func(name, kind, secret, before, after string) {
		cs = append(cs, secretCase{name, before + secret + after, kind, secret})
	}

	awsID := cat("AK", "IA", "IOSFODNN7", "EXAMPLE")
	add("aws access key id", "aws-access-key", awsID, "aws_access_key_id = ", "\n")
	add("aws temporary key id", "aws-access-key", cat("AS", "IA", "Q3FAKE", strings.ToUpper(hexs(10, 1))), "creds: ", " (expires soon)")
	add("aws secret key", "aws-secret-key", cat("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCY", "EXAMPLEKEY"), "aws_secret_access_key = ", "\n")
	add("aws secret key env", "aws-secret-key", b64(40, 2), "export AWS_SECRET_ACCESS_KEY=", "\n")
	add("gcp api key", "gcp-api-key", cat("AI", "za", "Sy", b64url(33, 3)), "const key = '", "';")
	add("gcp service account private_key", "private-key",
		cat("-----BEGIN PRIVATE KEY-----\\n", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", b64(64, 4), "\\n-----END PRIVATE KEY-----\\n"),
		`{"type": "service_account", "project_id": "demo", "private_key_id": "`+hexs(40, 5)+`", "private_key": "`, `", "client_email": "x@demo.iam.gserviceaccount.com"}`)
	add("gcp oauth client secret", "gcp-oauth-secret", cat("GOC", "SPX-", b64url(28, 6)), "client: ", "\n")
	add("google oauth access token", "gcp-access-token", cat("ya", "29.", mixed(60, 7)), "got ", " from metadata server")
	add("azure storage connection string", "azure-storage-key", b64(86, 8)+"==",
		"DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=", ";EndpointSuffix=core.windows.net")
	add("github ghp", "github-token", cat("gh", "p_", alnum(36, 9)), "GITHUB_TOKEN ", " in ci")
	add("github gho", "github-token", cat("gh", "o_", alnum(36, 10)), "oauth: ", "")
	add("github ghu", "github-token", cat("gh", "u_", alnum(36, 11)), "(", ")")
	add("github ghs", "github-token", cat("gh", "s_", alnum(36, 12)), "x-access-token ", ".")
	add("github ghr", "github-token", cat("gh", "r_", alnum(36, 13)), "refresh ", "\n")
	add("github fine-grained pat", "github-token", cat("github", "_pat_", alnum(22, 14), "_", alnum(59, 15)), "use ", " here")
	add("gitlab pat", "gitlab-token", cat("gl", "pat-", b64url(20, 16)), "PRIVATE-TOKEN ", "\n")
	add("openai legacy key", "openai-key", cat("s", "k-", alnum(20, 17), "T3Blbk", "FJ", alnum(20, 18)), "key ", "")
	add("openai project key", "openai-key", cat("s", "k-proj-", b64url(48, 19)), "OPENAI key is ", ", rotate it")
	add("anthropic key", "anthropic-key", cat("s", "k-ant-", "api03-", b64url(93, 20), "AA"), "use ", " for claude")
	add("openrouter key", "openrouter-key", cat("s", "k-or-", "v1-", hexs(64, 21)), "router ", "")
	add("hugging face token", "huggingface-token", cat("h", "f_", rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 22)), "huggingface-cli login --token ", "")
	add("groq key", "groq-key", cat("gs", "k_", alnum(52, 23)), "groq ", "")
	add("replicate token", "replicate-token", cat("r", "8_", alnum(37, 24)), "REPLICATE ", "")
	add("xai key", "xai-key", cat("xa", "i-", alnum(80, 25)), "grok ", "")
	add("perplexity key", "perplexity-key", cat("pp", "lx-", alnum(48, 26)), "pplx ", "")
	add("slack bot token", "slack-token", cat("xo", "xb-", "1234567890", "-", "1234567890123", "-", alnum(24, 27)), "SLACK ", "")
	add("slack user token", "slack-token", cat("xo", "xp-", "1234567890", "-", "1234567890", "-", "1234567890123", "-", hexs(32, 28)), "", "")
	add("slack webhook", "slack-webhook", cat("T0", "FAKE000", "/B0FAKE000/", alnum(24, 29)), "curl -X POST https://hooks.slack.com/services/", " -d @msg.json")
	add("discord webhook", "discord-webhook", cat("1234567890123456789/", b64url(68, 30)), "https://discord.com/api/webhooks/", "")
	add("stripe secret key", "stripe-key", cat("sk", "_live_", alnum(24, 31)), "stripe.api_key: ", "")
	add("stripe restricted key", "stripe-key", cat("rk", "_live_", alnum(24, 32)), "", " is restricted")
	add("stripe publishable key", "stripe-key", cat("pk", "_live_", alnum(24, 33)), "pk=", "")
	add("twilio api key", "twilio-key", cat("S", "K", hexs(32, 34)), "twilio sid ", "")
	add("sendgrid key", "sendgrid-key", cat("S", "G.", b64url(22, 35), ".", b64url(43, 36)), "SENDGRID ", "")
	add("npm token", "npm-token", cat("np", "m_", alnum(36, 37)), "//registry.npmjs.org/:_authToken ", "")
	add("pypi token", "pypi-token", cat("py", "pi-AgEIcHlwaS5vcmc", b64url(70, 38)), "password ", "")
	add("shopify token", "shopify-token", cat("shp", "at_", hexs(32, 39)), "shop ", "")
	add("digitalocean token", "digitalocean-token", cat("do", "p_v1_", hexs(64, 40)), "doctl ", "")
	add("vault token", "vault-token", cat("hv", "s.", b64url(90, 41)), "VAULT ", "")
	add("linear key", "linear-key", cat("lin", "_api_", alnum(40, 42)), "linear ", "")
	add("postman key", "postman-key", cat("PM", "AK-", hexs(24, 43), "-", hexs(34, 44)), "postman ", "")
	add("age secret key", "age-secret-key", cat("AGE-SECRET", "-KEY-1", rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 45)), "# key\n", "\n")
	add("rsa private key", "private-key",
		cat("-----BEGIN RSA ", "PRIVATE KEY-----\n", b64(64, 46), "\n", b64(64, 47), "\n-----END RSA PRIVATE KEY-----"), "key:\n", "\ndone")
	add("openssh private key", "private-key",
		cat("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", b64(70, 48), "\n-----END OPENSSH PRIVATE KEY-----"), "", "\n")
	add("ec private key", "private-key", cat("-----BEGIN EC ", "PRIVATE KEY-----\n", b64(64, 49), "\n-----END EC PRIVATE KEY-----"), "", "")
	add("encrypted private key", "private-key", cat("-----BEGIN ENCRYPTED ", "PRIVATE KEY-----\n", b64(64, 50), "\n-----END ENCRYPTED PRIVATE KEY-----"), "", "")
	add("dsa private key", "private-key", cat("-----BEGIN DSA ", "PRIVATE KEY-----\n", b64(64, 51), "\n-----END DSA PRIVATE KEY-----"), "", "")
	add("pgp private key", "private-key", cat("-----BEGIN PGP ", "PRIVATE KEY BLOCK-----\n\n", b64(64, 52), "\n-----END PGP PRIVATE KEY BLOCK-----"), "", "")
	add("unterminated private key", "private-key", cat("-----BEGIN ", "PRIVATE KEY-----\n", b64(64, 53), "\n", b64(30, 54)), "cat key.pem\n", "")
	add("jwt", "jwt", cat("ey", "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UifQ", ".", b64url(43, 55)), "id_tok ", "")
	add("password env", "password-assignment", "hunter2-fake", "PASSWORD=", "\n")
	add("db_pass env", "password-assignment", "Fake-pass-77", "DB_PASS=", "\n")
	add("pgpassword env", "password-assignment", "letmein", "PGPASSWORD=", " psql -h db")
	add("passwd yaml", "password-assignment", "correct horse battery staple", "  passwd: ", "\n")
	add("pwd assignment", "password-assignment", "Fak3Pwd", "pwd=", ";user=sa")
	add("secret yaml", "secret-assignment", "s3cr3t-fake-value", "secret: ", "\n")
	add("api_key env", "secret-assignment", "fakekey123456", "api_key=", "\n")
	add("apikey colon", "secret-assignment", "abc123fake456", "apikey: ", "\n")
	add("token query", "secret-assignment", "0a1b2cFAKEtok", "https://example.com/cb?code=1&token=", "&state=2")
	add("access_token json", "secret-assignment", "fake.access.token-1234", `{"access_token":"`, `","expires_in":3600}`)
	add("client_secret yaml", "secret-assignment", "fake-client-secret-42", "oauth:\n  client_secret: ", "\n")
	add("password json", "password-assignment", "s3cret!", `{"user":"bob","password": "`, `"}`)
	add("password cli flag", "password-assignment", "Tr0ub4dor&3", "mysql --password=", " -u root")
	add("password go literal", "password-assignment", "fake-pw-123", `password := "`, `"`)
	add("password php array", "password-assignment", "fakePW", `'password' => '`, `',`)
	add("api key header", "secret-assignment", "fake0123key4567", `curl -H "X-API-Key: `, `" https://api.example.com`)
	add("authorization bearer", "auth-header", "fakeToken.0123456789", "Authorization: Bearer ", "\r\n")
	add("authorization basic", "auth-header", base64.StdEncoding.EncodeToString([]byte("fakeuser:fakepass")), `-H 'Authorization: Basic `, `'`)
	add("bearer outside header", "bearer-token", "fake0123456789abcdefXYZ", "send it as Bearer ", " please")
	add("url credentials", "url-credentials", "admin:fakepw99", "postgres://", "@db:5432/app")
	add("url password only", "url-credentials", ":fakepw99", "redis://", "@cache:6379/0")
	add("url credentials https", "url-credentials", "x-access-token:fake0123", "git clone https://", "@github.com/org/repo.git")
	sasSig := "%2F" + b64url(40, 57) + "%2B" + alnum(6, 58) + "%3D"
	add("azure sas sig in url", "secret-assignment", sasSig,
		"https://fakeacct.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&spr=https&sig=", "")
	add("azure sas token env", "secret-assignment", alnum(30, 59)+"%2B"+alnum(10, 60)+"%3D",
		`AZURE_STORAGE_SAS_TOKEN="sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2025-06-01T00:00:00Z&sig=`, `"`)
	mailgun := cat("ke", "y-", rnd("abcdefghijklmnopqrstuvwxyz0123456789", 31, 61), "7")
	add("mailgun key bare", "mailgun-key", mailgun, "mailgun api key is ", ", rotate it")
	add("mailgun key in curl --user", "mailgun-key", mailgun, "curl -s --user 'api:", "' https://api.mailgun.net/v3/mg.example.com/messages")
	add("curl -u password", "cli-password", "Fak3-curl-pw", "curl -u deploy:", " https://ci.example.com/api")
	add("databricks token", "databricks-token", cat("da", "pi", hexs(32, 62)), "export DATABRICKS_HOST=https://x.cloud.databricks.com\ndatabricks token ", "\n")
	tg := cat("1234567", "89:", "AA", b64url(33, 63))
	add("telegram bot token", "telegram-bot-token", tg, "bot token ", " from BotFather")
	add("telegram bot token in url", "telegram-bot-token", tg, "curl https://api.telegram.org/bot", "/sendMessage -d chat_id=42")
	add("mysql -p attached", "cli-password", "S3cretPw", "mysql -h db -u root -p", " app < dump.sql")
	add("mysql -p letters only", "cli-password", "Secret", "mysqldump -uroot -p", " --all-databases")
	add("redis-cli -a", "cli-password", "Fake-redis-9", "redis-cli -h cache -p 6379 -a ", " ping")
	add("docker login -p", "cli-password", "Fake-dock-7", "docker login -u ci -p ", " registry.example.com")
	add("--password space", "cli-password", "Fake-pw-42", "mongosh --username admin --password ", " mongodb://db")
	add("--token space", "cli-password", "fk_"+alnum(20, 64), "gh-runner config --token ", " --url x")
	add("sshpass -p", "cli-password", "Fake-ssh-3", "sshpass -p '", "' ssh deploy@host")
	add("netrc one line", "netrc-password", "Fake-netrc-5", "machine api.example.com login bob password ", "\n")
	add("netrc lines", "netrc-password", "fake"+hexs(36, 65), "machine git.example.com\n  login bot\n  password ", "\n")
	add("pgpass line", "pgpass-password", "Fake\\:pg\\:pw", "# ~/.pgpass\ndb.example.com:5432:app:app_user:", "\n")
	add("pgpass wildcard", "pgpass-password", "fakepgpw77", "*:*:*:postgres:", "")
	// The same command lines and files, quoted inside a sentence.
	add("mysql -p in a sentence", "cli-password", "S3cretPw2", "I ran mysql -uroot -p", " mydb and it worked")
	add("redis-cli -a in a sentence", "cli-password", "Fake-redis-10", "then try redis-cli -a ", " ping to check")
	add("sshpass -p in a sentence", "cli-password", "Fake-ssh-4", "Deployed with sshpass -p ", " scp build.tar pi@10.0.0.5:")
	add("sshpass in backticks", "cli-password", "Fake-ssh-5", "use `sshpass -p '", "' ssh -p 22 root@gw` to connect")
	add("docker login in a sentence", "cli-password", "Fake-dock-8", "Logged in (docker login -u ci -p ", " registry.example.com) fine")
	add("pgpass line in a sentence", "pgpass-password", "fakepgpw78", "the .pgpass line db.example.com:5432:app:admin:", " works now.")
	add("password table row", "password-assignment", "Fake-tbl-9", "| Field | Value |\n|---|---|\n| Password | ", " |\n| Port | 22 |")
	add("password table row bold", "password-assignment", "Fake-tbl-10", "| **SSH Password** | `", "` |")
	add("bold password label", "password-assignment", "Fake-md-11", "- **Password**: ", "\n- Port: 22")
	add("bold password label inside", "password-assignment", "Fake-md-12", "**Password:** ", "\n")
	add("sql server connection string", "password-assignment", "Fake Pw 12!",
		"Server=tcp:db.example.com,1433;Database=app;User Id=sa;Password=", ";Encrypt=true;")
	add("docker hub token", "docker-hub-token", cat("dckr", "_pat_", b64url(27, 66)), "DOCKERHUB ", "")
	add("supabase token", "supabase-token", cat("sb", "p_", hexs(40, 67)), "supabase login --token ", "")
	add("langsmith key", "langsmith-key", cat("lsv2", "_pt_", hexs(32, 68), "_", hexs(10, 69)), "LANGSMITH ", "")
	add("tavily key", "tavily-key", cat("tv", "ly-", mixed(32, 70)), "tavily ", "")
	add("cairn api token", "cairn-token", cat("cai", "rn_", rnd("abcdefghijklmnopqrstuvwxyz234567", 52, 171)), "CAIRN_TOKEN=", " cairn serve")
	add("newrelic key", "newrelic-key", cat("NR", "AK-", strings.ToUpper(alnum(27, 71))), "newrelic ", "")
	add("base64 of a secret", "high-entropy", base64.StdEncoding.EncodeToString([]byte("DB_PASSWORD="+alnum(16, 72)+"\n")), "echo ", " | base64 -d")
	add("kubeconfig client key data", "high-entropy", base64.StdEncoding.EncodeToString([]byte(cat("-----BEGIN RSA ", "PRIVATE KEY-----\n", b64(64, 73), "\n-----END RSA PRIVATE KEY-----\n"))),
		"users:\n- name: admin\n  user:\n    client-key-data: ", "\n")
	add("high entropy", "high-entropy", mixed(48, 56), "session cookie ", " (from devtools)")
	add("high entropy base64", "high-entropy", "Zm9v"+b64(60, 57)+"==", "blob: ", "")
	return cs
}

// lookalikes must come out of String byte-identical.
func lookalikes() []string {
	png := base64.StdEncoding.EncodeToString([]byte(rnd(b62+"\x00\x01\x02\xff\xfe", 300, 100)))
	return []string{
		"commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345\nAuthor: Dev <dev@example.com>",
		"fixed in 3f2a9c1 and 3f2a9c1b7d4e (see git show 3f2a9c1b7d4e5f60)",
		"sha256sum: " + hexs(64, 101) + "  cairn-linux-amd64.tar.gz",
		`"integrity": "sha512-` + b64(86, 102) + `=="`,
		`<script src="x.js" integrity="sha384-` + b64(64, 103) + `" crossorigin="anonymous"></script>`,
		"github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec h1:" + b64(43, 104) + "=",
		"github.com/google/uuid v1.6.0/go.mod h1:" + b64(43, 105) + "=",
		"request id 123e4567-e89b-12d3-a456-426614174000 and 550E8400-E29B-41D4-A716-446655440000",
		"<img src=\"data:image/png;base64," + png + "\">",
		"/home/runner/work/cairn/cairn/internal/store/sqliteStore/migrations/0001InitSchema2Up.sql",
		"C:\\Users\\Alice\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages",
		"see https://github.com/cairn-dev/cairn/blob/main/internal/StoreImpl2/concurrentWriters_test.go#L42",
		"https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit?usp=sharing",
		"ssh://git@github.com/cairn-dev/cairn.git",
		"func TestStoreConcurrentWritersNeverLoseData(t *testing.T) {}",
		"BenchmarkString10KBWithSecrets HTTP2ServerConfigurationV3Enabled sha256ChecksumValidatorForUTF8Strings",
		"ProjectsLocationsInstancesGetIamPolicy2 x86_64-unknown-linux-gnu/Release/libFoo2",
		"bumped v1.2.3 -> v1.10.0-rc.1+build.20240115",
		"listening on 10.0.0.12:8080 and [2001:db8::8a2e:370:7334]:443",
		"2024-01-15T10:30:00.123456789Z and 2024-01-15 10:30:00 +0000 UTC",
		"image: ghcr.io/cairn-dev/cairn@sha256:" + hexs(64, 106),
		"the password field is validated before the token is refreshed",
		"Password: The password must be at least 12 characters.",
		"curl -H 'Authorization: Bearer $TOKEN' -d token=${TOKEN} https://api.example.com",
		"export GITHUB_TOKEN=<token>\nexport API_KEY=YOUR_API_KEY\n",
		"password=xxx\ntoken=***\nsecret=********\napi_key=xxxx-xxxx-xxxx",
		"POSTGRES_PASSWORD=changeme",
		"pod/cairn-api-deployment-7d9f8b6c5d-x2k4p restarted; svc/cairn-api-headless-0123456789",
		"npm i @types/react-dom @tanstack/react-query-devtools eslint-plugin-react-hooks",
		".btn { color: #ff00ff; background: #0a0b0c; border-color: rgba(0,0,0,.5) }",
		"token := os.Getenv(\"GITHUB_TOKEN\")\nif password == \"\" {\n\treturn errMissing\n}",
		"interface Creds {\n  password: string;\n  token: Option<String>;\n}",
		"def login(password: str, token: Optional[str] = None, api_key=api_key):",
		"config:\n  max_tokens: 4096\n  token_type: bearer\n  secretName: db-credentials\n",
		"kind: Secret\nmetadata:\n  name: db-credentials\n",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(43, 107) + " dev@laptop",
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(300, 108) + " dev@laptop",
		"-----BEGIN CERTIFICATE-----\n" + b64(64, 109) + "\n" + b64(64, 110) + "\n-----END CERTIFICATE-----",
		"checksum = \"" + hexs(64, 111) + "\"",
		"Bearer token authentication is configured in the gateway.",
		"mail dev@example.com or ops+alerts@example.org",
		"/nix/store/0c0y1z2x3w4v5u6t7s8r9q0p1o2n3m4l-go-1.26.8/bin/go",
		"Client: &http.Client{Timeout: 5 * time.Second}, Password: cfg.Password,\n\tToken: token,",
		"X-Amz-Date: 20240115T103000Z\nContent-SHA256: " + strings.ToUpper(hexs(64, 112)),
		"hex " + strings.ToUpper(hexs(40, 113)) + hexs(40, 114) + " mixed-case pure hex",
		"const maxPasswordLen = 72 // bcrypt limit; passwordHash := hash(pw)",
		"ok  \tgithub.com/cairn-dev/cairn/redact\t0.123s\nPASS: 12 FAIL: 0",
		// Base64 of text: prose, a JSON fixture, a public certificate.
		"payload: " + base64.StdEncoding.EncodeToString([]byte("The quick brown fox jumps over the lazy dog, then naps in the sun.")),
		`fixture = "` + base64.URLEncoding.EncodeToString([]byte(`{"name":"fixture","values":[1,2,3],"nested":{"a":"b","ok":true}}`)) + `"`,
		"clusters:\n- cluster:\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString([]byte(
			"-----BEGIN CERTIFICATE-----\n"+b64(64, 115)+"\n"+b64(64, 116)+"\n"+b64(20, 117)+"=\n-----END CERTIFICATE-----\n")) +
			"\n    server: https://127.0.0.1:6443\n  name: kind-kind",
		// CloudFront ids, AWS resource ids and ARNs.
		"aws cloudfront create-invalidation --distribution-id E2QWRUHAPOMQZL --paths '/*'",
		`{"Distribution": {"Id": "E2QWRUHAPOMQZL", "ARN": "arn:aws:cloudfront::123456789012:distribution/E2QWRUHAPOMQZL", "DomainName": "d111111abcdef8.cloudfront.net"}}`,
		"CLOUDFRONT_DISTRIBUTION_ID=E2QWRUHAPOMQZL\nInvalidation I2J0I21PCUYOIK completed",
		"instance i-0abcd1234efgh5678 in subnet-0123456789abcdef0, sg-0a1b2c3d4e5f67890",
		// Lockfiles, checksums, ids.
		"  resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c\"",
		`[[package]]` + "\nname = \"serde\"\nversion = \"1.0.197\"\nchecksum = \"" + hexs(64, 118) + "\"",
		"pnpm-lock: resolution: {integrity: sha512-" + b64(86, 119) + "==}",
		"Cargo.lock checksum " + hexs(64, 120) + " and poetry hash sha256:" + hexs(64, 121),
		"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
		"ULID 01ARZ3NDEKTSV4RRFFQ69G5FAV and KSUID 0ujtsYcgvSTl8PAuAdqWYSMnLOv",
		// Command lines without secrets.
		"mysql -u root -p app < dump.sql\nmysql -h db -P 3306 -u app -p\nredis-cli -h cache -p 6379 ping",
		"docker run -p 8080:80 -e MODE=dev nginx:1.25\ndocker login -u ci --password-stdin registry.example.com",
		"curl -u $USER:$TOKEN https://x && curl -u admin https://y\ngit commit -p\npsql --password\nkubectl logs -p pod/x",
		"see the --password flag and the --token option; pass --api-key $KEY",
		"machine api.example.com login bob\nlogin: bob password: <hidden>",
		"12:30:45 build finished; localhost:5432 is up; db:5432:app",
		"the clock read 10:30:00:00:01 and 12:00:00:05:59 at the end",
		"| Field | Type | Notes |\n|---|---|---|\n| password | string | required |\n| token | see the vault | |",
		"sshpass -p \"$PW\" ssh -p 2222 pi@gw; after sshpass ran, ssh -p 22 host worked",
		"the mysql docs say -p prompts for it; redis-cli uses -a with the password",
		"bot123:short and 123456789: not a token; https://api.telegram.org/bot<token>/getMe",
		"key-value store, monkey-patching, hot-key-1234 and key-rotation-policy-2024",
		"the databricks api docs: dapi tokens start with dapi",
	}
}
