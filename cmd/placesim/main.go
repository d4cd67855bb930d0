// Command placesim simulates deep-learning training steps placed on
// multi-GPU clusters and compares placement algorithms. See README.md.
package main

import (
	"os"

	"placesim/cmd/placesim/cli"
)

func main() { os.Exit(cli.RunProcess(os.Args[1:], os.Stdout, os.Stderr)) }
