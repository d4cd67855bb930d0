package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// RunProcess is the program's entry point: Main inside a private
// temporary directory. Placers that run external tools (CBC, METIS,
// Scotch) make their scratch directories (placesim-mip-*,
// placesim-metis-*) in os.TempDir; RunProcess points TMPDIR at a fresh
// directory of its own and removes it on every way out (success, error,
// Ctrl-C), so a run interrupted while a solver works leaves nothing in the
// system's temporary directory. Only a SIGKILL can leave it behind.
func RunProcess(args []string, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "placesim-")
	if err == nil {
		old, had := os.LookupEnv("TMPDIR")
		os.Setenv("TMPDIR", tmp)
		defer func() {
			if had {
				os.Setenv("TMPDIR", old)
			} else {
				os.Unsetenv("TMPDIR")
			}
			// Main closed the scratch tracker (nothing of placesim makes
			// a directory here any more); a killed tool's last writes may
			// still land, so a removal that fails is tried again briefly
			// and reported, never left silently
			var err error
			for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
				if err = os.RemoveAll(tmp); err == nil || time.Now().After(deadline) {
					break
				}
			}
			if err != nil {
				fmt.Fprintf(stderr, "placesim: could not remove the temporary directory %s: %v\n", tmp, err)
			}
		}()
	}
	return Main(args, stdout, stderr)
}
