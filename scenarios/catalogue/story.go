package catalogue

import (
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/story"
)

// Story lays out the run of p for a reader: the catalogue's picture and the run
// inspector are drawn from it.
func (r *Run) Story(title string, p *plan.Plan) *story.Story {
	c := r.Cluster
	return story.Build(story.Input{
		Title:    title,
		Steps:    c.Trace.Steps(),
		Log:      c.Server.Log(),
		Start:    c.Clock.Now().Add(-c.Now()),
		Plan:     p,
		Verdicts: r.Verdicts,
	})
}

// LogLines are the lines the run's controllers logged (trace steps "log"), for
// the inspector.
func (r *Run) LogLines() []story.LogLine {
	var out []story.LogLine
	for _, s := range r.Cluster.Trace.Steps() {
		if s.Op == "log" {
			out = append(out, story.LogLine{At: int64(s.At), Process: s.Process, Controller: s.Controller, Text: s.Result})
		}
	}
	return out
}
