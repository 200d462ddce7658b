// Package conversation keeps the chat logs of a cairn data folder, one per
// project: an append-only record of the messages exchanged with an agent,
// from which memories are extracted every few messages (seed 001).
//
// # Layout
//
//	DIR/conversations/PROJECT/
//	    _state.json     per month: {chatId, extractedUpTo, projectPath}
//	    2026-01.jsonl   every message of January 2026 (UTC), one per line
//	    2026-02.jsonl
//
// DIR is the data folder (for the cairn command: the folder holding the
// database); PROJECT is the project's name as FolderName writes it (the
// name itself, unless it holds a path separator or the like). Folders are
// created with mode 0700 and files with 0600: chat logs may hold private
// text.
//
// Earlier versions kept one log for the whole data folder, directly in
// DIR/conversations. Log.AdoptLegacy moves the months of that log whose
// state names the project into the project's folder, extraction marks and
// all; the cairn command does it before a project's first append.
//
// # Month files
//
// Each line of a month file is one ChatMessage as JSON:
//
//	{"role":"user","content":"Fix the timezone bug","senderName":"Alice","timestamp":"2026-02-04T10:00:00.000Z"}
//
// role is "user", "assistant" or "system"; senderName is optional;
// timestamp is RFC 3339 in UTC with milliseconds. A message belongs to the
// month of its timestamp in UTC. Files are only ever appended to: a line is
// written with a single write on a file opened with O_APPEND, so concurrent
// appenders (goroutines or processes) never interleave their lines.
//
// Lines are counted from 0 and every newline-terminated line counts, well
// formed or not. A malformed line (not JSON, no role, a bad timestamp) is
// skipped and reported as a Problem, never fatal. A last line without its
// newline (a writer that died mid-line) is not counted yet and is reported.
//
// # State
//
// _state.json maps a month ("2026-02") to
//
//	{"chatId":"…","extractedUpTo":5,"projectPath":"…"}
//
// where extractedUpTo is the number of lines of the month file already
// extracted: the messages on lines extractedUpTo and later are pending.
// Keeping this in a separate file leaves the month files append-only.
// The state is replaced atomically (written to a temporary file in the same
// folder, synced, then renamed over _state.json), so a reader sees the old
// or the new state, never a torn one; a temporary file left behind by a
// crash is ignored. MarkExtracted never lowers extractedUpTo. Two extractors
// running at the same moment may both extract the same messages; cairn's
// content dedup folds the duplicates.
package conversation
