// Package memtool serves Anthropic's client-side memory tool (tool type
// memory_20250818, name "memory") from cairn: the /memories directory the
// model reads and writes is a view of one project's memories.
//
// # How files map to memories
//
// Each file is one memory of the project given to New:
//
//   - key:     "memfile:" + the path, e.g. memfile:/memories/notes/auth.md
//     (the key is what identifies the file; see KeyPrefix)
//   - title:   the path
//   - content: the file text, exactly as stored (after redaction)
//   - type:    "context" (FileType): relevant tier and no time to live by
//     default (a ttl configured for context applies to files too), so the
//     files are found by `cairn search` and injected by `cairn context`
//     like any other memory; files are never folded into each other, even
//     with the same text
//   - tag:     "memfile" (FileTag); source explicit; Agent and SessionID
//     of the Tool as provenance
//
// A memory is listed as a file when it carries the memfile tag and its key
// is KeyPrefix followed by a valid path. Editing a file through cairn (for
// example `cairn edit ID --content`) changes what the tool shows; changing
// its type or confidence by hand keeps it a file.
//
// Directories are not stored: a directory exists while at least one file
// lies under it, and disappears with its last file. /memories itself
// always exists; viewed while empty it lists only itself:
//
//	Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:
//	0B	/memories
//
// rename keeps the memory's id (and so its history, confidence and uses)
// and changes its key and title; renaming a directory renames every file
// under it. delete of a directory deletes every file under it.
//
// # Answers
//
// The answers and error messages are those of Anthropic's reference
// (the memory tool documentation and its SDK's file-system
// implementation), so a model trained on them reads them as it expects:
// "File created successfully at: /memories/a.md", "The path /memories/x
// does not exist. Please provide a valid path.", and so on. Where the
// reference says nothing (bad paths, empty or oversized text) the answer
// is one sentence starting with "Error:".
//
// # Rules
//
// Paths must be /memories or start with /memories/, at most MaxPathBytes
// bytes, without "." or ".." segments, backslashes, "%" (percent-encoding
// is refused, never decoded), control or invisible characters. A trailing
// slash and repeated slashes are dropped; answers name the cleaned path.
// A path that looks like a secret is refused (it would be redacted in the
// key, and the file could no longer be found).
//
// File text is stored through the engine, so its redaction applies
// (secrets become [REDACTED:kind]; a later str_replace sees the redacted
// text), and its limits: at most cairn.MaxContentBytes (64 KiB) of UTF-8
// without NUL bytes, and not empty or only white space (cairn stores no
// empty memories).
//
// Lines are the text split at "\n"; a final "\n" ends the last line and
// does not start another, so "a\nb\n" has two lines. insert keeps
// whether the file ended with "\n".
//
// Each command is atomic on its own file. An edit (str_replace, insert)
// reads the file, then writes only if the file still holds what it read
// (cairn.MemoryUpdate.IfContent); when another agent or process changed
// it in between, the edit is applied again to the new text, so two agents
// editing one file at the same moment lose nothing. A create stores the
// file only if it is new, in one transaction (cairn.Service.CreateMemory):
// of two processes creating one path at once, the second is told that the
// file exists. A command that touches several files (delete or rename of
// a directory) writes them one by one; a rename that cannot move one of
// them moves the others back.
package memtool
