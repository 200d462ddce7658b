package transcript

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// bigTranscript repeats the fixture's lines, with fresh tool_use ids per
// repetition, until it holds at least size bytes.
func bigTranscript(b *testing.B, size int) []byte {
	b.Helper()
	src := fixture(b)
	var buf bytes.Buffer
	buf.Grow(size + len(src))
	for i := 0; buf.Len() < size; i++ {
		buf.WriteString(strings.ReplaceAll(src, `"toolu_0`, fmt.Sprintf(`"toolu_%d_`, i)))
	}
	return buf.Bytes()
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkIngest50MB reads a ~50 MB transcript and runs the extractor
// over it. The budget is 5 s for 50 MB (10 MB/s); the heap in use after
// the run is checked to be within a few MB of before it: reading and
// extracting stream, they do not keep the transcript.
func BenchmarkIngest50MB(b *testing.B) {
	data := bigTranscript(b, 50<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		before := heapInuse()
		b.StartTimer()
		x := NewExtractor("proj")
		mems := 0
		st, err := Read(bytes.NewReader(data), func(e Entry) error {
			mems += len(x.Add(e))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if x.Finish() == nil || mems == 0 || st.Bytes != int64(len(data)) {
			b.Fatalf("stats %+v, %d memories", st, mems)
		}
		b.StopTimer()
		after := heapInuse()
		b.StartTimer()
		runtime.KeepAlive(x)
		if grow := int64(after) - int64(before); grow > 4<<20 {
			b.Fatalf("the heap grew by %d bytes over the run", grow)
		}
		b.ReportMetric(float64(int64(after)-int64(before))/(1<<20), "heap-growth-MB")
	}
}
