package explore_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// An exploration run while another is under way (here from inside its
// property; from another goroutine it would be the same) sets the one set of
// flags of the process: the outer one's budget is not its own until the inner
// one has restored it.
func TestAnExplorationInsideAnotherOverwritesItsFlags(t *testing.T) {
	var outer, inner, after string
	explore.Run(plan.Generator(space), 1, 1, func(*plan.Plan) error {
		outer = flagValues()["rapid.checks"]
		explore.Run(plan.Generator(space), 5, 2, func(*plan.Plan) error {
			inner = flagValues()["rapid.checks"]
			return nil
		})
		after = flagValues()["rapid.checks"]
		return nil
	})
	if outer != "1" || inner != "5" || after != "1" {
		t.Fatalf("-rapid.checks read %q by the outer exploration, %q while the inner one ran, %q after it; want 1, 5, 1", outer, inner, after)
	}
}

// It builds testdata/noinit, a binary linking the simulator (about 6 s): not
// under -short.
func TestABinaryThatIsNoTestMustCallTestingInitBeforeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary of the simulator, about 6 s")
	}
	bin := filepath.Join(t.TempDir(), "noinit")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/noinit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "testing: Short called before Init") {
		t.Errorf("without testing.Init: %v\n%s\nwant the panic of testing.Short", err, out)
	}
	out, err = exec.Command(bin, "init").CombinedOutput()
	if err != nil || string(out) != "ok 1\n" {
		t.Errorf("with testing.Init: %v\n%s\nwant ok 1", err, out)
	}
}
