package study

import (
	"context"
	"fmt"
)

// awaitCtx runs f on its own goroutine and returns its result, or ctx's
// error as soon as ctx is done, whichever comes first: a command stays
// interruptible even while a placer or the engine ignores its context.
// A panic in f is returned as an error. An abandoned f runs on in the
// background; its result is dropped.
func awaitCtx[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1) // buffered: an abandoned f never blocks
	go func() {
		defer func() {
			if r := recover(); r != nil {
				var zero T
				ch <- result{zero, fmt.Errorf("internal error (a bug, please report): %v", r)}
			}
		}()
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if err := ctx.Err(); err != nil {
			var zero T
			return zero, err
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
