package main

import (
	"os"
	"path/filepath"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// writeInspector writes the run inspector of a replayed run to file.
func writeInspector(file, title string, r *catalogue.Replayed) error {
	dir, err := os.MkdirTemp("", "ctrlsim-inspector-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	base := filepath.Join(dir, "run")
	if err := r.WriteStory(base, title); err != nil {
		return err
	}
	page, err := os.ReadFile(base + ".html")
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, page, 0o644); err != nil {
		return usagef("cannot write --html: %v", err)
	}
	return nil
}
