package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// workPool is the worker pool and journal loop that a scenario run
// (RunScenario) and a layout search (Search) share: items run on Workers
// goroutines; each finished item's journal line is appended to Journal
// and handed to Done, one item at a time, so that a killed run resumes
// from the journal.
type workPool[T any] struct {
	// Workers is the number of goroutines (<= 0: GOMAXPROCS), never more
	// than the items.
	Workers int
	// Journal, when not nil, gets each finished item's line as one JSON
	// line.
	Journal io.Writer
	// Start, if set, is called as an item starts, never concurrently.
	Start func(item T)
	// Work runs an item (concurrently with others) and returns its
	// journal line; complete false means it was interrupted and is left
	// for the next run: neither journaled nor done.
	Work func(item T) (line journalLine, complete bool)
	// Done, if set, is called after an item's line was journaled, never
	// concurrently.
	Done func(item T, line journalLine)
}

// run feeds items to the workers until they are all done or ctx is done
// (the items not started then are left), and returns the first journal
// write error.
func (p *workPool[T]) run(ctx context.Context, items []T) error {
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(items)))
	var mu sync.Mutex
	var firstErr error
	ch := make(chan T)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range ch {
				if p.Start != nil {
					mu.Lock()
					p.Start(item)
					mu.Unlock()
				}
				line, complete := p.Work(item)
				if !complete {
					continue
				}
				var b []byte
				if p.Journal != nil {
					b, _ = json.Marshal(line)
				}
				mu.Lock()
				if p.Journal != nil {
					if _, err := p.Journal.Write(append(b, '\n')); err != nil && firstErr == nil {
						firstErr = fmt.Errorf("journal: %w", err)
					}
				}
				if p.Done != nil {
					p.Done(item, line)
				}
				mu.Unlock()
			}
		}()
	}
	for _, item := range items {
		if ctx.Err() != nil {
			break
		}
		ch <- item
	}
	close(ch)
	wg.Wait()
	return firstErr
}
