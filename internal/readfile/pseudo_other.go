//go:build !linux

package readfile

import "os"

// pseudoFS: other systems' pseudo files (if any) are left to the size
// bound.
func pseudoFS(*os.File) string { return "" }
