package reference

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The plans one line shorter leave out each fault, then each drawn step;
// an author's scripted step is never left out.
func TestAPlanOneLineShorterLeavesOutAFaultOrADrawnStep(t *testing.T) {
	p, err := plan.Parse(`seed 1
script at 0s create object=ConfigMap/shop/web
at 10s update object=ConfigMap/shop/web
crash process=op write=1
crash process=op write=2
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range withoutALine(p) {
		got = append(got, strings.ReplaceAll(strings.TrimSpace(c.String()), "\n", " | "))
	}
	want := []string{
		"seed 1 | script at 0s create object=ConfigMap/shop/web | at 10s update object=ConfigMap/shop/web | crash process=op write=2",
		"seed 1 | script at 0s create object=ConfigMap/shop/web | at 10s update object=ConfigMap/shop/web | crash process=op write=1",
		"seed 1 | script at 0s create object=ConfigMap/shop/web | crash process=op write=1 | crash process=op write=2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.Size() != 4 {
		t.Errorf("the plan itself changed: %s", p)
	}
}
