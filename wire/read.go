package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/ordered"
)

// MaxLineBytes is the longest JSON Lines record Read accepts.
const MaxLineBytes = 8 << 20

// MaxDocumentBytes is the largest export document or JSON array Read
// accepts: such a source is read whole before its records are yielded.
const MaxDocumentBytes = 512 << 20

// Read yields the records of an import source: JSON Lines of memory
// objects, or a seed 000 export document ({"version", "project",
// "memories": [...]}), or a JSON array of memory objects. Blank lines are
// skipped. A record that cannot be read is yielded with Err set and its
// line number; reading goes on with the next line. An error of the reader
// itself is yielded last, with Line 0.
func Read(r io.Reader) iter.Seq[cairn.ImportRecord] {
	return func(yield func(cairn.ImportRecord) bool) {
		br := bufio.NewReaderSize(r, 1<<20)
		first, newlines, err := peekNonSpace(br)
		if err == io.EOF {
			return
		}
		if err != nil {
			yield(cairn.ImportRecord{Err: err})
			return
		}
		if first == '[' || isDocumentStart(br) {
			readDocument(br, yield)
			return
		}
		readLines(br, newlines, yield)
	}
}

// peekNonSpace skips leading white space and a byte order mark, and
// returns the first other byte and how many newlines it skipped.
func peekNonSpace(br *bufio.Reader) (byte, int, error) {
	newlines := 0
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, newlines, err
		}
		switch b[0] {
		case '\n':
			newlines++
			br.ReadByte()
		case ' ', '\t', '\r':
			br.ReadByte()
		case 0xEF: // a UTF-8 byte order mark
			if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
				br.Discard(3)
				continue
			}
			return b[0], newlines, nil
		default:
			return b[0], newlines, nil
		}
	}
}

// isDocumentStart reports whether the input is one multi-line JSON object
// (an export document) rather than JSON Lines: its first line is not a
// complete JSON value, or it is an object with a "memories" field.
func isDocumentStart(br *bufio.Reader) bool {
	buf, _ := br.Peek(br.Buffered())
	if len(buf) == 0 {
		buf, _ = br.Peek(64 << 10)
	}
	line := buf
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		line = buf[:i]
	} else if len(buf) == br.Size() {
		return false // a very long first line: JSON Lines
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return bytes.Equal(bytes.TrimSpace(line), []byte("{"))
	}
	_, ok := probe["memories"]
	return ok
}

// decodeChunk is how many records a decoding goroutine takes at a time.
const decodeChunk = 64

// rawRecord is a record as read, before decoding: its bytes, line and
// default project, or the record to yield as it is (an error found while
// reading).
type rawRecord struct {
	b       []byte
	project string
	rec     cairn.ImportRecord
}

// decodeRaw decodes a record read by readLines or readDocument.
func decodeRaw(r rawRecord) cairn.ImportRecord {
	if r.b == nil {
		return r.rec
	}
	rec := decodeRecord(r.b)
	rec.Line = r.rec.Line
	if rec.Memory != nil && rec.Memory.Project == "" {
		rec.Memory.Project = r.project
	}
	return rec
}

// decodeAll yields the records of raw decoded on every core, in order.
func decodeAll(raw iter.Seq[rawRecord], yield func(cairn.ImportRecord) bool) {
	for rec := range ordered.Map(raw, runtime.GOMAXPROCS(0), decodeChunk, decodeRaw) {
		if !yield(rec) {
			return
		}
	}
}

func readLines(br *bufio.Reader, line int, yield func(cairn.ImportRecord) bool) {
	decodeAll(func(yield func(rawRecord) bool) {
		var slab []byte // lines are copied out of br's buffer into slabs
		for {
			b, err := readLine(br)
			if len(b) > 0 || err == nil || errors.Is(err, errLineTooLong) {
				line++
			}
			if err != nil && err != io.EOF {
				if errors.Is(err, errLineTooLong) {
					if !yield(rawRecord{rec: cairn.ImportRecord{Line: line, Err: fmt.Errorf("the line is longer than %d bytes", MaxLineBytes)}}) {
						return
					}
					continue
				}
				yield(rawRecord{rec: cairn.ImportRecord{Err: err}})
				return
			}
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if len(t) > cap(slab)-len(slab) {
					slab = make([]byte, 0, max(64<<10, len(t)))
				}
				start := len(slab)
				slab = append(slab, t...)
				if !yield(rawRecord{b: slab[start:len(slab):len(slab)], rec: cairn.ImportRecord{Line: line}}) {
					return
				}
			}
			if err == io.EOF {
				return
			}
		}
	}, yield)
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline; a line over
// MaxLineBytes is skipped and reported as errLineTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(frag) > MaxLineBytes {
				// Skip to the end of the line.
				for err == bufio.ErrBufferFull {
					_, err = br.ReadSlice('\n')
				}
				return nil, errLineTooLong
			}
			long = append(long, frag...)
			continue
		}
		if long != nil {
			frag = append(long, frag...)
		}
		frag = bytes.TrimRight(frag, "\r\n")
		if len(frag) > MaxLineBytes {
			return nil, errLineTooLong
		}
		return frag, err
	}
}

func readDocument(br *bufio.Reader, yield func(cairn.ImportRecord) bool) {
	data, err := io.ReadAll(io.LimitReader(br, MaxDocumentBytes+1))
	if err != nil {
		yield(cairn.ImportRecord{Err: err})
		return
	}
	if len(data) > MaxDocumentBytes {
		yield(cairn.ImportRecord{Err: fmt.Errorf("an export document or JSON array is read whole, and this one is larger than %d MiB: write it as JSON Lines (`cairn export --format jsonl`)", MaxDocumentBytes>>20)})
		return
	}
	var items []json.RawMessage
	project := ""
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &items); err != nil {
			yield(cairn.ImportRecord{Line: 1, Err: describe(err)})
			return
		}
	} else {
		var doc struct {
			Version  int               `json:"version"`
			Project  string            `json:"project"`
			Memories []json.RawMessage `json:"memories"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			yield(cairn.ImportRecord{Line: 1, Err: fmt.Errorf("not an export document: %v", describe(err))})
			return
		}
		if doc.Version > DocumentVersion {
			yield(cairn.ImportRecord{Line: 1, Err: fmt.Errorf("export document version %d is newer than this cairn reads (%d)", doc.Version, DocumentVersion)})
			return
		}
		items, project = doc.Memories, doc.Project
	}
	decodeAll(func(yield func(rawRecord) bool) {
		for i, raw := range items {
			if !yield(rawRecord{b: raw, project: project, rec: cairn.ImportRecord{Line: i + 1}}) {
				return
			}
		}
	}, yield)
}

func decodeRecord(b []byte) cairn.ImportRecord {
	if !utf8.Valid(b) {
		return cairn.ImportRecord{Err: fmt.Errorf("the record is not valid UTF-8")}
	}
	w := &Memory{}
	if err := json.Unmarshal(b, w); err != nil {
		return cairn.ImportRecord{Err: describe(err)}
	}
	m := w.ToMemory()
	if err := fromSeed001(b, m); err != nil {
		return cairn.ImportRecord{Err: err}
	}
	return cairn.ImportRecord{Memory: m}
}

// describe turns encoding/json errors into sentences that name the field.
func describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("field %s: expected %s, found a JSON %s", te.Field, kindName(te.Type.Kind().String()), te.Value)
		}
		return fmt.Errorf("expected a JSON object, found a JSON %s", te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if i := strings.Index(msg, "Go struct field "); i >= 0 {
		msg = msg[:i] + "field " + msg[i+len("Go struct field "):]
	}
	return errors.New(msg)
}

func kindName(k string) string {
	switch k {
	case "float64", "int":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "a list"
	}
	return k
}

// WriteJSONL writes memories as JSON Lines, one object a line.
func WriteJSONL(w io.Writer, ms []*cairn.Memory) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, m := range ms {
		if err := enc.Encode(FromMemory(m)); err != nil {
			return err
		}
	}
	return bw.Flush()
}
