// Command noinit runs one exploration in a binary that is not a test, for
// TestABinaryThatIsNoTestMustCallTestingInitBeforeRun: with the argument
// "init" it calls testing.Init first, as cmd/ctrlsim does, and prints "ok";
// without it, rapid's engine asks testing.Short and the binary panics.
package main

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "init" {
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	}
	space := plan.Space{Processes: []string{"op"}, Kinds: []string{"/v1/ConfigMap"}, Horizon: time.Minute}
	r := explore.Run(plan.Generator(space), 1, 1, func(*plan.Plan) error { return nil })
	fmt.Println("ok", r.Checks)
}
