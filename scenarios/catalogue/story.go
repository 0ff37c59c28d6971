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
