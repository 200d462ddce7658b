// Package extract turns text (recent chat messages, or an excerpt of an
// agent's transcript) into candidate memories by asking a language model
// through an OpenAI-compatible chat completions endpoint: OpenAI itself,
// Ollama's /v1 API, llama.cpp's server, or anything else that speaks the
// same wire format.
//
// Extraction is off unless configured. ConfigFromEnv reads:
//
//	CAIRN_MODEL_BASE_URL    the API root, e.g. https://api.openai.com/v1 or
//	                        http://localhost:11434/v1 (required)
//	CAIRN_MODEL             the model name, e.g. gpt-4o-mini or llama3.1 (required)
//	CAIRN_MODEL_API_KEY     the bearer key; when unset, OPENAI_API_KEY is used;
//	                        may be empty for local servers
//	CAIRN_MODEL_MAX_CALLS   calls allowed per UTC day (default 50)
//	CAIRN_MODEL_MAX_TOKENS  prompt + completion tokens allowed per UTC day, as
//	                        reported by the API (default 200000)
//
// When CAIRN_MODEL_BASE_URL or CAIRN_MODEL is unset, extraction is off.
// Unparsable or non-positive limits fall back to the defaults.
//
// # Request
//
// Client.Extract sends one request:
//
//	POST {BaseURL}/chat/completions
//	Authorization: Bearer {APIKey}        (only when a key is set)
//	{"model": Model,
//	 "messages": [{"role": "system", "content": Prompt},
//	              {"role": "user", "content": text}],
//	 "temperature": 0,
//	 "response_format": {"type": "json_object"}}
//
// The text is cut to its last MaxInputChars characters (the end of a
// conversation is the freshest part).
//
// # Prompt
//
// The system prompt, Prompt, is:
//
//	You extract durable memories for a software project from a conversation
//	between a developer and an AI coding agent, or from an excerpt of the
//	agent's transcript. A memory is something a future session on the same
//	project should know before it starts work.
//
//	Answer with one JSON object and nothing else:
//
//	{"memories": [{"type": "...", "title": "...", "content": "...",
//	  "tags": ["..."], "files": ["..."], "confidence": 0.0}]}
//
//	Fields:
//	- type: one of decision, constraint, pattern, convention, pitfall, fix,
//	  preference, context, issue, learning.
//	- title: a short summary, at most 10 words.
//	- content: the memory itself, 1 or 2 sentences, self-contained (a reader
//	  will not see the conversation).
//	- tags: a few lowercase keywords (letters, digits, "-", "_", ":", ".", "/").
//	- files: paths or globs of the files the memory is about; [] if none.
//	- confidence: 0 to 1, how sure you are that the memory is true and
//	  will stay useful.
//
//	Rules:
//	- Keep only durable, project-specific learnings: decisions and their
//	  reasons, constraints, conventions, recurring pitfalls and their fixes,
//	  the user's stated preferences.
//	- Skip small talk, one-off steps, the progress of the current task, and
//	  general programming knowledge any developer already has.
//	- Never include secrets: no API keys, tokens, passwords, private URLs
//	  with credentials, or personal data.
//	- Do not repeat the same fact in two memories.
//	- When nothing is worth keeping, answer {"memories": []}.
//
// # Answers
//
// The answer is read from choices[0].message.content; a ```json fence
// around it is tolerated. Each item is validated on its own and invalid
// items are dropped (Usage.Dropped counts them): the type is lowercased
// and must satisfy cairn.ValidName; the content must be non-empty and at
// most MaxMemoryChars characters; the confidence is clamped to
// [MinExtractedConfidence, MaxExtractedConfidence] and defaults to
// DefaultExtractedConfidence when absent or not a number; invalid tags are dropped from the item; an
// empty title is derived from the content. Returned memories have Source
// cairn.SourceExtracted and no project, ID or times: the caller stores
// them.
//
// # Budget and errors
//
// Spend is counted per UTC day in a Budget (FileBudget keeps it in a JSON
// file shared by every cairn process). Before calling, Extract checks the
// day's calls and tokens; when either limit is reached it fails with
// cairn.EUNAVAILABLE, naming the limit and when it resets (the next UTC
// midnight), and sends nothing. A call is counted as soon as a request is
// about to be sent, whatever its outcome (a 429 or 500 still counts, so a
// failing endpoint cannot be hammered); tokens are counted from the
// response's usage field, estimated as characters/4 when a successful
// answer has none, and zero for HTTP errors, timeouts and bodies that
// are not JSON. Concurrent
// extractions may overshoot a limit by the calls already in flight.
//
// Errors carry cairn codes:
//   - budget exhausted: EUNAVAILABLE, no request sent;
//   - 401 or 403: EUNAVAILABLE, "the model endpoint refused the key";
//   - 429, 5xx, other HTTP errors, network errors and timeouts:
//     EUNAVAILABLE with the status; retry later;
//   - a 2xx answer that is not the JSON asked for (not JSON, no choices,
//     no "memories" list): EINVALID, "the model answered something other
//     than the JSON asked for"; retry later, possibly with another model.
//
// Extract never marks anything as done and stores nothing: on any error
// the caller keeps its messages and may try again in a later run.
package extract
