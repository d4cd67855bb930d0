// Package scratch makes the temporary directories that placers hand to
// external tools (CBC's model files, METIS and Scotch graphs) and keeps a
// list of them in the context, so that a command interrupted with Ctrl-C
// removes them before it exits, even while the placer that made one is
// still running on an abandoned goroutine (issue 18, item 6).
package scratch

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"
)

// ErrClosed is MkdirTemp's error under a Tracker that was closed: the
// command is exiting and no new scratch directory may appear.
var ErrClosed = errors.New("scratch: the command is exiting (scratch directories closed)")

// Tracker records the scratch directories made under a context that
// carries it. Its zero value is ready to use.
type Tracker struct {
	mu     sync.Mutex
	dirs   map[string]struct{}
	closed bool
}

// From returns the Tracker ctx carries, or nil.
func From(ctx context.Context) *Tracker {
	t, _ := ctx.Value(key{}).(*Tracker)
	return t
}

type key struct{}

// WithTracker returns ctx carrying t: MkdirTemp under it registers each
// directory with t.
func WithTracker(ctx context.Context, t *Tracker) context.Context {
	return context.WithValue(ctx, key{}, t)
}

// MkdirTemp makes a directory as os.MkdirTemp("", pattern) does and
// returns it with the function that removes it; under a context with a
// Tracker the directory is made and registered under the tracker's lock,
// so that it is either registered before Close removes the registered
// directories or never made (ErrClosed): a placer abandoned on a
// goroutine cannot leave one behind after its command exits.
func MkdirTemp(ctx context.Context, pattern string) (string, func(), error) {
	t := From(ctx)
	if t == nil {
		dir, err := os.MkdirTemp("", pattern)
		if err != nil {
			return "", nil, err
		}
		return dir, func() { _ = os.RemoveAll(dir) }, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", nil, ErrClosed
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	if t.dirs == nil {
		t.dirs = map[string]struct{}{}
	}
	t.dirs[dir] = struct{}{}
	remove := func() {
		_ = os.RemoveAll(dir)
		t.mu.Lock()
		delete(t.dirs, dir)
		t.mu.Unlock()
	}
	return dir, remove, nil
}

// Close refuses every later MkdirTemp under t (ErrClosed) and removes the
// registered directories (RemoveAll): once it returns, no scratch
// directory of t exists or can appear, except those it returns (a killed
// tool's last writes outlasting patience).
func (t *Tracker) Close(patience time.Duration) []string {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return t.RemoveAll(patience)
}

// Pending returns how many registered directories are not yet removed.
func (t *Tracker) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.dirs)
}

// RemoveAll removes every registered directory. A tool still running may
// be writing into one (it is killed with placesim, but not at once), so a
// directory that is not empty after removal is tried again for up to
// patience. It returns the directories it could not remove.
func (t *Tracker) RemoveAll(patience time.Duration) []string {
	deadline := time.Now().Add(patience)
	for {
		t.mu.Lock()
		var left []string
		for dir := range t.dirs {
			if err := os.RemoveAll(dir); err == nil {
				delete(t.dirs, dir)
			} else {
				left = append(left, dir)
			}
		}
		t.mu.Unlock()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}
