// Package capture finds the memories an agent's output signals and turns
// them into cairn memories.
//
// Parse reads any text (a transcript, a log, the final answer of an agent
// run) line by line in one pass and returns the signals it found and the
// problems it met. A malformed or unknown signal is never dropped silently:
// it becomes a Problem with its line number. Text without signals gives
// neither signals nor problems.
//
// # Where signals are looked for
//
// Lines are split on "\n"; a "\r" before it (CRLF output) is removed.
// Line numbers start at 1.
//
// Text inside fenced code blocks is not scanned: a line starting (after
// any indentation) with three or more backticks or tildes opens a fence,
// and a line of at least as many of the same character closes it. Agents
// quote examples of signals there. A signal quoted inline, directly after
// a backtick (`MEMORY:pattern:…` or `<learning>`), is not a signal either.
// A fence that is never closed hides the rest of the output; if that rest
// holds signal-looking text, a Problem says so.
//
// The body of a sigil tag is text, not scanned: a MEMORY: line or a tag
// mentioned inside a <learning> belongs to the learning.
//
// # MEMORY: signals (seed 000)
//
//	MEMORY:type:content
//
// may stand anywhere on a line. The type (up to the next ":") is trimmed
// and lowercased and must be a valid cairn type name (lowercase letters,
// digits and _ - : . /, starting with a letter or digit). The content runs
// to the end of the line. The title is the content's first sentence or
// line, at most 100 bytes (cairn.TitleFromContent). "MEMORY:" must not
// follow a letter, digit or underscore ("NOMEMORY:x:y" is no signal).
//
// Multi-line form: the lines right after a MEMORY: line that are indented
// by at least two more spaces than it (a tab counts as four) continue its
// content; a blank line, a less indented line, a fence, or a line holding
// another signal ends it. The first line's content may be empty:
//
//	MEMORY:decision:Use a mutex over a channel in Manager.
//	  The state is a single map and every access is short;
//	  a channel would serialise reads for nothing.
//
//	MEMORY:pitfall:
//	  session.Worktree is "" until Start has run.
//
// # <learning> (seed 003)
//
//	<learning category="pattern" tags="testing,go" files="engine/*.go" title="…">text</learning>
//
// All attributes are optional; values are quoted with " or ' (or unquoted
// without spaces). category (alias type) is the memory type, default
// "learning"; tags and files are comma-separated; title overrides the
// derived title; other attributes are kept in Signal.Fields. The body may
// span lines and ends at the first </learning>. Several tags may share a
// line. Tag names are case-insensitive and "_" may stand for "-".
//
//	<learning category="pitfall" tags="sqlite">
//	modernc sqlite needs _pragma=busy_timeout in the DSN, not a PRAGMA
//	statement, or concurrent writers fail with SQLITE_BUSY.
//	</learning>
//
// # <failure-report> (seed 003)
//
// The body is "key: value" lines. A key is a letter followed by up to 30
// letters, digits, spaces, "_" or "-", then ":" and a space or the end of
// the line; it is lowercased with spaces turned into "_", and may follow a
// "- " bullet. A value continues on the following lines up to the next key
// line that is indented no deeper than the first key; deeper lines are
// always continuation (so YAML-like lists work). Text before the first
// key is kept as "details"; a body without any key is the error. Keys:
//
//	error     what went wrong (aliases: err, failure, problem)
//	approach  what was tried (aliases: tried, attempted, attempt)
//	avoid     what not to do again (aliases: dont, do_not)
//	files     comma-separated files involved (become the memory's file refs)
//	tags      comma-separated tags
//	anything else, e.g. cause, next: kept and rendered as well
//
// Example:
//
//	<failure-report>
//	error: TestImport times out after 10m
//	approach: raised the batch size to 50k rows
//	avoid:
//	  - batches over 10k rows (the WAL grows past 1 GB)
//	  - disabling fsync
//	files: sqlite/import.go, sqlite/wal.go
//	</failure-report>
//
// # <difficulty-estimate> (seed 003)
//
//	<difficulty-estimate>hard</difficulty-estimate>
//	<difficulty-estimate>4: touches the scheduler and the store</difficulty-estimate>
//
// The body starts with easy, medium or hard, or a number 1 to 5 (also
// written "4/5"): 1-2 are easy, 3 medium, 4-5 hard. Anything after it
// (past a ":", "-" or space) is the reason. Signal.Fields holds "level",
// "score" (when a number was given) and "reason".
//
// # <retry-suggestion> (seed 003)
//
//	<retry-suggestion>Split the migration into one step per table and retry.</retry-suggestion>
//
// The body is free text, possibly over several lines.
//
// # Key Learnings sections
//
// A Markdown heading of level 1 to 4 reading "Key Learnings" or
// "Learnings" (any case, an optional trailing ":") followed by a bullet
// list ("- ", "* ", "+ " or "1. ") makes each bullet a learning. Blank
// lines between the heading and the list are allowed; the list ends at a
// blank line, a heading, a fence or an unindented line that is not a
// bullet. Lines indented two or more spaces deeper than a bullet (nested
// bullets included) continue it. A bullet holding a MEMORY: signal or a
// sigil tag is that signal instead.
//
//	## Key Learnings
//	- The engine dedups by normalised content hash.
//	- CLI tests run through Main.Run with their own database.
//
// # Problems
//
// Problems are reported for: a tag that is not closed (at the end of the
// output, or when a line starting with another sigil tag comes first), an
// empty body or content, an invalid type, category or tag name (a bad tag
// is dropped, the rest of the signal kept), a closing tag without an
// opening one, a malformed opening tag, an unknown tag that looks like one
// of ours (<failure-reprot>, <learnings>), a MEMORY: without a type, a
// difficulty that is not easy/medium/hard/1-5, content over
// cairn.MaxContentBytes or not valid UTF-8, and a Key Learnings heading
// without bullets.
//
// # Memories
//
// Signal.Memory converts a signal into a memory with Source explicit:
//
//	memory            its type; title and content as parsed
//	learning          type = category ("learning" by default), its tags and files
//	failure_report    type "failure"; title "Failed: " and the error's first sentence;
//	                  content "**Error:** …\n**Tried:** …\n**Avoid:** …" then the other
//	                  fields by name; tag "failure-report" and its tags; files as file refs
//	difficulty        type "task_result"; content "Difficulty: hard (4/5)" and the
//	                  reason; tags "difficulty" and "difficulty:LEVEL"
//	retry_suggestion  type "task_result"; content the text; tag "retry-suggestion"
//
// Difficulty estimates and retry suggestions are stored as task results
// because they describe one attempt at one task: they expire with the
// task's other results (90 days) and are found by searches about the
// task. The caller links them to the task by setting TaskID (cairn
// capture --task does); cairn capture also gives a difficulty estimate
// the key "difficulty:TASK", so a task keeps one, latest, estimate.
package capture
