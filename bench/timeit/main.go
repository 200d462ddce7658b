// Command timeit measures the wall-clock time of a whole command, run as a
// child process again and again, and prints its median, p90, p99, min and
// max in milliseconds.
//
//	go run ./bench/timeit -runs 50 -warmup 5 -- cairn search "flaky test"
//	go run ./bench/timeit -runs 200 -each queries.txt -- cairn search -- {}
//
// With -each FILE, run i substitutes line i of FILE (cycling) for every
// literal {} in the arguments, so each run can ask something different.
// With -stdin FILE, each run reads FILE on its standard input, with every
// {} in it replaced by the run's -each line escaped for a JSON string (a
// hook payload: go run ./bench/timeit -each q.txt -stdin payload.json --
// cairn hook claude user-prompt-submit).
// Commands separated by a lone "::" are measured in turn on each line
// (A then B on one line, B then A on the next; with three, A B C then
// C B A), so that all see the same inputs and the same machine load; the
// figures of each are printed, A's first (with -json, one object per
// line):
//
//	go run ./bench/timeit -each q.txt -- old search -- {} :: new search -- {}
//
// The command's output is discarded; a run that exits with a non-zero
// status stops the measurement with an error that shows its standard error.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/internal/benchio"
)

// Stats are the measured times in milliseconds.
type Stats struct {
	Label  string  `json:"label,omitempty"`
	Runs   int     `json:"runs"`
	Median float64 `json:"median_ms"`
	P90    float64 `json:"p90_ms"`
	P99    float64 `json:"p99_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
	Mean   float64 `json:"mean_ms"`
	Total  float64 `json:"total_ms"`
	// CPUMedian is the median of the child's user+system CPU time: on a
	// busy machine it moves much less than the wall-clock figures.
	CPUMedian float64 `json:"cpu_median_ms"`
}

func main() {
	runs := flag.Int("runs", 50, "measured runs")
	warmup := flag.Int("warmup", 5, "unmeasured runs before measuring")
	each := flag.String("each", "", "substitute the lines of `FILE`, in turn, for {} in the arguments")
	asJSON := flag.Bool("json", false, "print the figures as one JSON object")
	label := flag.String("label", "", "a name to print with the figures")
	stdinFile := flag.String("stdin", "", "give each run `FILE` on standard input ({} becomes the -each line, JSON-escaped)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: timeit [-runs N] [-warmup N] [-each FILE] [-stdin FILE] [-json] [-label TEXT] -- CMD [ARGS...] [:: CMD [ARGS...]]...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *runs < 1 || *warmup < 0 {
		flag.Usage()
		os.Exit(2)
	}
	var lines []string
	if *each != "" {
		var err error
		if lines, err = benchio.ReadLines(*each); err != nil {
			fatalf("%v", err)
		}
		if len(lines) == 0 {
			fatalf("%s has no lines", *each)
		}
	}
	var stdinTmpl []byte
	if *stdinFile != "" {
		var err error
		if stdinTmpl, err = os.ReadFile(*stdinFile); err != nil {
			fatalf("%v", err)
		}
	}
	errFile, err := os.CreateTemp("", "timeit-stderr-*")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.Remove(errFile.Name())

	var cmds [][]string
	for {
		i := slices.Index(args, "::")
		if i < 0 {
			cmds = append(cmds, args)
			break
		}
		cmds = append(cmds, args[:i])
		args = args[i+1:]
	}
	for _, c := range cmds {
		if len(c) == 0 {
			flag.Usage()
			os.Exit(2)
		}
	}
	times := make([][]float64, len(cmds))
	cpus := make([][]float64, len(cmds))
	for i := 0; i < *warmup+*runs; i++ {
		line := ""
		if lines != nil {
			line = lines[i%len(lines)]
		}
		var stdin []byte
		if stdinTmpl != nil {
			esc, _ := json.Marshal(line)
			stdin = bytes.ReplaceAll(stdinTmpl, []byte("{}"), esc[1:len(esc)-1])
		}
		for k := range cmds {
			c := k
			if i%2 == 1 {
				c = len(cmds) - 1 - k // the other order on odd lines
			}
			argv := cmds[c]
			if lines != nil {
				argv = substitute(argv, line)
			}
			d, cpu, err := runOnce(argv, stdin, errFile)
			if err != nil {
				os.Remove(errFile.Name())
				fatalf("%v", err)
			}
			if i >= *warmup {
				times[c] = append(times[c], float64(d.Nanoseconds())/1e6)
				cpus[c] = append(cpus[c], float64(cpu.Nanoseconds())/1e6)
			}
		}
	}
	for c := range cmds {
		s := summarize(times[c])
		sort.Float64s(cpus[c])
		s.CPUMedian = median(cpus[c])
		s.Label = *label
		if len(cmds) > 1 && s.Label == "" {
			s.Label = string(rune('A' + c))
		}
		if *asJSON {
			b, _ := json.Marshal(s)
			fmt.Println(string(b))
			continue
		}
		prefix := ""
		if s.Label != "" {
			prefix = s.Label + ": "
		}
		fmt.Printf("%sruns=%d median=%.2fms p90=%.2fms p99=%.2fms min=%.2fms max=%.2fms mean=%.2fms cpu=%.2fms\n",
			prefix, s.Runs, s.Median, s.P90, s.P99, s.Min, s.Max, s.Mean, s.CPUMedian)
	}
}

// runOnce runs the command with its output discarded (standard error goes
// to errFile, shown if the command fails) and returns the wall-clock time
// from start to exit and the CPU time the child used. stdin, when not
// nil, is the child's standard input (else the null device).
func runOnce(argv []string, stdin []byte, errFile *os.File) (wall, cpu time.Duration, err error) {
	if err := errFile.Truncate(0); err != nil {
		return 0, 0, err
	}
	if _, err := errFile.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = nil // the null device
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stderr = errFile
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		msg, _ := os.ReadFile(errFile.Name())
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("exit status %d", ee.ExitCode())
		}
		return 0, 0, fmt.Errorf("%s failed: %v\n%s", quote(argv), err, strings.TrimSpace(string(msg)))
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func substitute(args []string, line string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "{}", line)
	}
	return out
}

// summarize computes the figures; percentiles are nearest-rank.
func summarize(ms []float64) Stats {
	sorted := append([]float64(nil), ms...)
	sort.Float64s(sorted)
	total := 0.0
	for _, x := range sorted {
		total += x
	}
	n := len(sorted)
	return Stats{
		Runs:   n,
		Median: median(sorted),
		P90:    round(benchio.Percentile(sorted, 90)),
		P99:    round(benchio.Percentile(sorted, 99)),
		Min:    round(sorted[0]),
		Max:    round(sorted[n-1]),
		Mean:   round(total / float64(n)),
		Total:  round(total),
	}
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return round(sorted[n/2])
	}
	return round((sorted[n/2-1] + sorted[n/2]) / 2)
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

func quote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'`$\\") {
			a = fmt.Sprintf("%q", a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "timeit: "+format+"\n", args...)
	os.Exit(1)
}
