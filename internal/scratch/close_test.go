package scratch

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// Close against placers still making scratch directories on abandoned
// goroutines (TestInterrupt's flake: a directory made just after the
// command's cleanup outlived the process): once Close returns, the
// temporary directory is empty and stays empty, with no timing involved.
func TestCloseRefusesLaterDirectories(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for round := 0; round < 20; round++ {
		var tr Tracker
		ctx := WithTracker(context.Background(), &tr)
		start := make(chan struct{})
		var wg sync.WaitGroup
		var refused sync.Map
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				<-start
				for i := 0; i < 200; i++ {
					_, _, err := MkdirTemp(ctx, "placesim-race-")
					if errors.Is(err, ErrClosed) {
						refused.Store(g, true)
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			}(g)
		}
		close(start)
		time.Sleep(time.Duration(round%4) * time.Millisecond) // Close at varied points of the race
		if left := tr.Close(time.Second); len(left) != 0 {
			t.Fatalf("round %d: Close left %v", round, left)
		}
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 0 {
			t.Fatalf("round %d: %d directories right after Close (first %s)", round, len(ents), ents[0].Name())
		}
		wg.Wait() // the makers finish: none may have made one after Close
		if ents, _ = os.ReadDir(tmp); len(ents) != 0 {
			t.Fatalf("round %d: %d directories made after Close (first %s)", round, len(ents), ents[0].Name())
		}
		if tr.Pending() != 0 {
			t.Fatalf("round %d: %d still registered", round, tr.Pending())
		}
		if _, _, err := MkdirTemp(ctx, "placesim-late-"); !errors.Is(err, ErrClosed) {
			t.Fatalf("round %d: MkdirTemp after Close: %v, want ErrClosed", round, err)
		}
	}
}
