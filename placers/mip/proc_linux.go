package mip

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the solver receive SIGKILL when the process that
// started it dies, so that no solver outlives a killed placesim.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
