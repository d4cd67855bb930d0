package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"placesim/internal/readfile"
	"placesim/runresult"
)

// Stamp says which placesim wrote a results file (runresult.Stamp).
type Stamp = runresult.Stamp

// NewStamp is the stamp of command, dated now (or SOURCE_DATE_EPOCH).
func NewStamp(command string) *Stamp {
	t := time.Now().UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			t = time.Unix(sec, 0).UTC()
		}
	}
	return &Stamp{Placesim: Version(), Command: command, Date: t.Format(time.RFC3339)}
}

// ErrOtherCommand marks an output directory that holds another command's
// results: each command writes into a folder of its own.
var ErrOtherCommand = errors.New("the output directory holds another command's results")

// ClaimDir refuses to write command's results into dir when dir's
// results.json was written by another command (compare's results next to
// a run's would replace them and mix their reports). A directory without
// results.json, or with one of the same command, is free.
func ClaimDir(dir, command string) error {
	path := filepath.Join(dir, "results.json")
	data, err := readfile.Read(path, readfile.MaxData)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output directory %q: %w", dir, err)
	}
	var head struct {
		Format   string          `json:"format"`
		Stamp    *Stamp          `json:"stamp"`
		Scenario json.RawMessage `json:"scenario"`
	}
	owner := "an unknown program"
	if json.Unmarshal(bytes.TrimSpace(data), &head) == nil {
		switch {
		case head.Stamp != nil:
			owner = head.Stamp.Command
		case head.Format == ResultsFormat:
			owner = "run" // results written before stamps: run or sweep
			if command == "sweep" {
				owner = "sweep"
			}
		case head.Format == "" && head.Scenario == nil:
			owner = "compare" // compare's results before the one schema
		}
	}
	// merge combines a run's or a sweep's shards, often in their folder
	scenarioCmd := func(c string) bool { return c == "run" || c == "sweep" }
	if owner == command || (command == "merge" && scenarioCmd(owner)) || (owner == "merge" && scenarioCmd(command)) {
		return nil
	}
	return fmt.Errorf("%w: %s was written by placesim %s, not %s (valid: an empty directory or one of this command's, e.g. -o out/%s)",
		ErrOtherCommand, path, owner, command, command)
}
