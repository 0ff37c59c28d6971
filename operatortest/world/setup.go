package world

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A manager that cannot start tests nothing: no silent pass. Its Setup runs
// inside the kernel at every start of its process; an error ends the
// incarnation (the process restarts after its back-off, as a pod whose main
// exits does), and a panic is recovered here (the test binary survives) and
// becomes that error, its stack kept for the report. In a run without faults
// (a reference, the preflight) nothing can excuse it: the run is an error of
// the test's setup, named with the manager, the error or panic and its stack.
// Under faults (an API error injected into a call of Setup) it is what a real
// pod does, and the run goes on.

// SetupFailures records the Setup failures of one run.
type SetupFailures struct {
	byProcess map[string]setupFailure
	blocked   blockedSetup // a Setup that did not return (validate_setup.go)
}

type setupFailure struct {
	manager string
	panic   string // the panic value, or "" for an error
	stack   string
}

// wrap is setup (of manager's process proc) with its panics recovered and
// recorded.
func (s *SetupFailures) wrap(manager, proc string, setup func(*process.Process) error) func(*process.Process) error {
	return func(p *process.Process) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if s.byProcess == nil {
					s.byProcess = map[string]setupFailure{}
				}
				s.byProcess[proc] = setupFailure{manager: manager, panic: fmt.Sprint(r), stack: string(debug.Stack())}
				err = fmt.Errorf("Setup panicked: %v", r)
			}
		}()
		if err := setup(p); err != nil {
			if s.byProcess == nil {
				s.byProcess = map[string]setupFailure{}
			}
			s.byProcess[proc] = setupFailure{manager: manager}
			return err
		}
		return nil
	}
}

// err is the first failed start of a manager in steps (a Setup that returned
// an error or panicked, or a controller it built that could not start), or
// nil.
func (s *SetupFailures) err(steps []trace.Step, managers []Manager) error {
	for _, st := range steps {
		if st.Op != "setup" || !strings.HasPrefix(st.Result, "error") {
			continue
		}
		f, ok := s.byProcess[st.Process]
		if !ok {
			f.manager = managerOf(st.Process, managers)
		}
		what := strings.TrimPrefix(st.Result, "error: ")
		if f.panic != "" {
			return fmt.Errorf("manager %s (process %s) cannot start: its Setup panicked at %s with no fault injected: %s\n%s",
				f.manager, st.Process, trace.FormatAt(st.At), f.panic, f.stack)
		}
		return fmt.Errorf("manager %s (process %s) cannot start: its Setup failed at %s with no fault injected: %s",
			f.manager, st.Process, trace.FormatAt(st.At), what)
	}
	return nil
}

// managerOf is the manager that runs process proc.
func managerOf(proc string, managers []Manager) string {
	for _, m := range managers {
		for _, spec := range m.Processes() {
			if spec.Name == proc {
				return m.Name
			}
		}
	}
	return proc
}
