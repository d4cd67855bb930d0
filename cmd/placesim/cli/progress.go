package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// defaultProgressEvery is how often a progress line is printed when
// standard error is not a terminal.
const defaultProgressEvery = 5 * time.Second

// defaultLongRun is how long a run goes before the progress says it is
// still running (while it runs).
const defaultLongRun = time.Minute

// progress reports a long command on standard error: a bar on a terminal;
// elsewhere (a file, a pipe, a CI log) a line every few seconds with what
// runs, how many are done and the time elapsed. A run going for longer
// than a minute is named with its time in either case. Nil when quiet.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	what     string
	done     int
	total    int
	start    time.Time
	running  map[string]time.Time
	told     map[string]bool
	bar      *progressbar.ProgressBar
	terminal bool
	stop     chan struct{}
	stopped  sync.WaitGroup
	longRun  time.Duration
}

// newProgress starts reporting command what (e.g. "compare") of total
// runs on w, every f.ProgressEvery; nil when quiet.
func newProgress(f *Factory, what string, total int, quiet bool) *progress {
	if quiet {
		return nil
	}
	every := f.ProgressEvery
	if every <= 0 {
		every = defaultProgressEvery
	}
	long := f.LongRun
	if long <= 0 {
		long = defaultLongRun
	}
	p := &progress{w: f.ErrOut, what: what, total: total, start: time.Now(), longRun: long,
		running: map[string]time.Time{}, told: map[string]bool{}, terminal: writerIsTerminal(f.ErrOut), stop: make(chan struct{})}
	if p.terminal {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f.ErrOut),
			progressbar.OptionSetDescription(what), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return p
}

// setTotal changes the number of runs (once known).
func (p *progress) setTotal(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
	if p.bar != nil {
		p.bar.ChangeMax(n)
	}
}

// started records that run name started.
func (p *progress) started(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[name] = time.Now()
}

// finished records that run name ended, done runs in all.
func (p *progress) finished(name string, done int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, name)
	p.done = done
	if p.bar != nil {
		_ = p.bar.Set(done)
	}
}

// tick prints the progress line (not on a terminal) and names the runs
// going for longer than a minute.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	names := make([]string, 0, len(p.running))
	for n := range p.running {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return p.running[names[i]].Before(p.running[names[j]]) })
	var parts, long, longNames []string
	for _, n := range names {
		raw := now.Sub(p.running[n])
		d := raw.Round(time.Second)
		parts = append(parts, fmt.Sprintf("%s %s", n, d))
		if raw >= p.longRun {
			long = append(long, fmt.Sprintf("%s (%s)", n, d))
			longNames = append(longNames, n)
		}
	}
	elapsed := now.Sub(p.start).Round(time.Second)
	if p.bar != nil {
		if len(long) > 0 {
			p.bar.Describe(p.what + ": still running " + strings.Join(long, ", "))
		}
		return
	}
	count := fmt.Sprintf("%d/%d", p.done, p.total)
	if p.total == 0 {
		count = fmt.Sprint(p.done) // the total is not known yet
	}
	line := fmt.Sprintf("%s: %s done, %s elapsed", p.what, count, elapsed)
	if len(parts) > 0 {
		line += "; running: " + strings.Join(parts, ", ")
	}
	fmt.Fprintln(p.w, line)
	for _, name := range longNames {
		if !p.told[name] {
			p.told[name] = true
			fmt.Fprintf(p.w, "%s: %s has been running for over %s\n", p.what, name, p.longRun)
		}
	}
}

// close stops the reports and clears the bar.
func (p *progress) close() {
	if p == nil {
		return
	}
	close(p.stop)
	p.stopped.Wait()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
