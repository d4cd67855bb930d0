package study

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
)

// TestWorkPool: every item runs once, Start and Done are never
// concurrent, each complete item is journaled once before its Done, an
// interrupted item is neither journaled nor done, a journal write error
// is returned, and a cancelled context stops feeding items.
func TestWorkPool(t *testing.T) {
	items := make([]int, 40)
	for i := range items {
		items[i] = i
	}
	var journal bytes.Buffer
	var inHook atomic.Int32
	hook := func() {
		if inHook.Add(1) != 1 {
			t.Error("Start or Done called concurrently")
		}
		inHook.Add(-1)
	}
	started, done := map[int]bool{}, map[int]bool{}
	p := workPool[int]{Workers: 4, Journal: &journal,
		Start: func(i int) { hook(); started[i] = true },
		Work: func(i int) (journalLine, bool) {
			return journalLine{Record: Record{Point: Point{Index: i}}}, i%10 != 7 // 7, 17, ... interrupted
		},
		Done: func(i int, l journalLine) {
			hook()
			if l.Record.Index != i {
				t.Errorf("item %d done with the line of %d", i, l.Record.Index)
			}
			done[i] = true
		}}
	if err := p.run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	if len(started) != 40 || len(done) != 36 || done[7] || done[37] {
		t.Fatalf("%d started, %d done (7: %v), want 40 and 36 without the interrupted", len(started), len(done), done[7])
	}
	lines := map[int]int{}
	sc := bufio.NewScanner(&journal)
	for sc.Scan() {
		var l journalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		lines[l.Record.Index]++
	}
	if len(lines) != 36 || lines[7] != 0 || lines[0] != 1 {
		t.Errorf("journal holds %d items (7: %d, 0: %d), want the 36 complete once each", len(lines), lines[7], lines[0])
	}

	bad := workPool[int]{Workers: 2, Journal: failingJournal{}, Work: func(i int) (journalLine, bool) { return journalLine{}, true }}
	if err := bad.run(context.Background(), items[:3]); err == nil {
		t.Error("a journal that cannot be written: no error")
	}

	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	stop := workPool[int]{Workers: 1, Work: func(i int) (journalLine, bool) {
		if ran.Add(1) == 2 {
			cancel()
		}
		return journalLine{}, true
	}}
	if err := stop.run(ctx, items); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n > 3 {
		t.Errorf("%d items ran after the context was cancelled at the second, want at most 3", n)
	}
}

type failingJournal struct{}

func (failingJournal) Write([]byte) (int, error) { return 0, errors.New("disk full") }
