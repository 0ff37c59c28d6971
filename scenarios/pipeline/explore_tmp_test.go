package pipeline

import (
	"os"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func TestTmpTrace(t *testing.T) {
	v, _ := variant.Parse(os.Getenv("V"))
	p, err := plan.Parse(os.Getenv("PLAN"))
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorld(Config{Variant: v, PreRecord: os.Getenv("PRE") != ""})
	c, err := cluster.New(p, w.Options())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(10 * time.Minute)
	c.Trace.WriteTimeline(os.Stdout)
	for _, e := range w.Promotion.Ledger() {
		t.Logf("effect %+v", e)
	}
	for _, a := range w.Promotion.Attempts() {
		t.Logf("attempt %s %d %v", a.Key, a.N, a.Err)
	}
}
