//go:build !linux

package mip

import "os/exec"

// dieWithParent does nothing where the OS has no parent-death signal.
func dieWithParent(*exec.Cmd) {}
