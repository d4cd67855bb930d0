package study

// MaxWorkers bounds the points (or placers) run in parallel (--workers,
// --jobs): each is a goroutine with its own simulation memory, and more
// than a thousand gain nothing on any machine placesim runs on, while
// 2^31 of them exhaust it before the first point starts (issue 31).
const MaxWorkers = 1024
