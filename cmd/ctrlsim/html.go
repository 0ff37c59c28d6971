package main

import (
	"bytes"
	"os"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// writeInspector writes the run inspector of a replayed run to file.
func writeInspector(file, title string, r *catalogue.Run, p *plan.Plan) error {
	var page bytes.Buffer
	if err := r.Story(title, p).WriteHTML(&page, r.LogLines()); err != nil {
		return err
	}
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		return usagef("cannot write --html: %v", err)
	}
	return nil
}
