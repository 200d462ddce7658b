// Package modelbudget counts what calls to a model endpoint spend per UTC
// day (requests and tokens) and checks it against daily limits, for every
// client of such an endpoint (extraction, embeddings): the rules are the
// same for all, and each client keeps its own count.
package modelbudget

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// Day returns the budget day (UTC, "2006-01-02") of t.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// NextMidnight is when the budget day of t ends.
func NextMidnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// Limits are a client's daily limits. CallsName and TokensName name the
// settings that set them, for the messages that say a limit is reached.
type Limits struct {
	Calls      int
	Tokens     int
	CallsName  string
	TokensName string
}

// Check reads what b has spent on the day of now and reports what is left.
// It fails with EUNAVAILABLE when the budget cannot be read or a limit is
// reached (the message says which, and when it resets); callers check
// before every call to the endpoint.
func (l Limits) Check(b Budget, now time.Time) (callsLeft, tokensLeft int, err error) {
	calls, tokens, err := b.Spent(Day(now))
	if err != nil {
		return 0, 0, AsUnavailable(err, "cannot read the model budget")
	}
	callsLeft, tokensLeft = Left(l.Calls, calls), Left(l.Tokens, tokens)
	resets := NextMidnight(now).Format(time.RFC3339)
	if calls >= l.Calls {
		return callsLeft, tokensLeft, cairn.Errorf(cairn.EUNAVAILABLE,
			"the daily model call limit (%d calls, %s) is reached; it resets at %s", l.Calls, l.CallsName, resets)
	}
	if tokens >= l.Tokens {
		return callsLeft, tokensLeft, cairn.Errorf(cairn.EUNAVAILABLE,
			"the daily model token limit (%d tokens, %s) is reached; it resets at %s", l.Tokens, l.TokensName, resets)
	}
	return callsLeft, tokensLeft, nil
}

// Left is what is left of limit after spent, never below 0.
func Left(limit, spent int) int {
	if spent >= limit {
		return 0
	}
	return limit - spent
}

// AsUnavailable keeps a cairn error as it is and wraps any other as
// EUNAVAILABLE with msg.
func AsUnavailable(err error, msg string) error {
	var ce *cairn.Error
	if errors.As(err, &ce) {
		return err
	}
	return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s", msg)
}

// Budget is where model spend is counted, per UTC day ("2006-01-02").
// Implementations are safe for concurrent use.
type Budget interface {
	Spent(day string) (calls, tokens int, err error)
	Add(day string, calls, tokens int) error
}

// DaySpend is one day's spend.
type DaySpend struct {
	Calls  int `json:"calls"`
	Tokens int `json:"tokens"`
}

// MemBudget counts spend in memory, for one process. The zero value is
// ready to use.
type MemBudget struct {
	mu   sync.Mutex
	days map[string]DaySpend
}

func (b *MemBudget) Spent(day string) (int, int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.days[day]
	return s.Calls, s.Tokens, nil
}

func (b *MemBudget) Add(day string, calls, tokens int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.days == nil {
		b.days = map[string]DaySpend{}
	}
	s := b.days[day]
	s.Calls += calls
	s.Tokens += tokens
	b.days[day] = s
	return nil
}

// FileBudget keeps spend in a JSON file shared by every process:
//
//	{"2026-11-22": {"calls": 3, "tokens": 1234}}
//
// Writes go to a temporary file renamed over Path, under a lock file
// (Path + ".lock", created exclusively; a lock older than staleLock is
// taken to be left by a crashed process and removed). Days more than
// keepDays before the day being added are pruned. A missing file is an
// empty budget; an unreadable or corrupt one fails with EUNAVAILABLE
// (nothing is spent until it is fixed or deleted).
type FileBudget struct{ Path string }

const (
	staleLock   = 30 * time.Second
	lockTimeout = 10 * time.Second
	keepDays    = 31
)

func (b *FileBudget) Spent(day string) (int, int, error) {
	days, err := b.read()
	if err != nil {
		return 0, 0, err
	}
	s := days[day]
	return s.Calls, s.Tokens, nil
}

func (b *FileBudget) Add(day string, calls, tokens int) error {
	unlock, err := b.lock()
	if err != nil {
		return err
	}
	defer unlock()
	days, err := b.read()
	if err != nil {
		return err
	}
	s := days[day]
	s.Calls += calls
	s.Tokens += tokens
	days[day] = s
	if t, err := time.Parse("2006-01-02", day); err == nil {
		oldest := Day(t.AddDate(0, 0, -keepDays))
		for d := range days {
			if d < oldest {
				delete(days, d)
			}
		}
	}
	return b.write(days)
}

func (b *FileBudget) read() (map[string]DaySpend, error) {
	days := map[string]DaySpend{}
	raw, err := os.ReadFile(b.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return days, nil
	}
	if err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot read the model budget file %s", b.Path)
	}
	if len(raw) == 0 {
		return days, nil
	}
	if err := json.Unmarshal(raw, &days); err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "the model budget file %s is corrupt; fix or delete it", b.Path)
	}
	if days == nil {
		days = map[string]DaySpend{}
	}
	return days, nil
}

func (b *FileBudget) write(days map[string]DaySpend) error {
	raw, err := json.MarshalIndent(days, "", "  ")
	if err != nil {
		return cairn.WrapError(cairn.EINTERNAL, err, "cannot encode the model budget")
	}
	dir := filepath.Dir(b.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot create the directory of the model budget file %s", b.Path)
	}
	f, err := os.CreateTemp(dir, filepath.Base(b.Path)+".tmp*")
	if err != nil {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot write the model budget file %s", b.Path)
	}
	tmp := f.Name()
	_, werr := f.Write(append(raw, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, b.Path)
	}
	if werr != nil {
		os.Remove(tmp)
		return cairn.WrapError(cairn.EUNAVAILABLE, werr, "cannot write the model budget file %s", b.Path)
	}
	return nil
}

// lock takes the lock file, waiting up to lockTimeout.
func (b *FileBudget) lock() (func(), error) {
	path := b.Path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot create the directory of the model budget file %s", b.Path)
	}
	deadline := time.Now().Add(lockTimeout)
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot lock the model budget file %s", b.Path)
		}
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > staleLock {
			os.Remove(path) // left by a crashed process
			continue
		}
		if time.Now().After(deadline) {
			return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the model budget file %s is locked by another process (remove %s if none is running)", b.Path, path)
		}
		time.Sleep(wait)
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}
