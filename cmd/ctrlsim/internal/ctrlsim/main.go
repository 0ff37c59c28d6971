// Command ctrlsim explores, replays and catalogues controller bugs in the
// deterministic simulator. `go run ./cmd/ctrlsim` and `go tool ctrlsim` run
// its launcher (cmd/ctrlsim), which builds this package, saying how far the
// compile is, and runs it; make run and the container image build it
// directly.
//
//	ctrlsim list [--json]
//	ctrlsim run [--entry GLOB] [--variant V] [--checks N] [--seed S] [--shard I/N | --shards-of-indexed-job N] [--json] [--json-markers] [--cpuprofile F] [--memprofile F]
//	ctrlsim merge [--json] FILE...
//	ctrlsim replay --entry ID --variant V (--plan FILE | --plan-text TEXT) [--timeline] [--json]
//	ctrlsim catalogue [--check]
//	ctrlsim bench [--json] [--report FILE] [--no-envtest] [--no-operatortest] [--no-world-cost | --only-world-cost] [--world-cost-rounds N]
//	ctrlsim report [--out FILE] PLAN
//	ctrlsim scaffold [--dir DIR] [--out FILE] [--name TestX] [--manager-per-controller] [--force]
//
// Bad input (an unknown entry or variant, a malformed plan, an unreadable file, a
// bad flag) exits 2 with one line naming the problem.
//
// The command runs the garbage collector at GOGC=400 unless GOGC is set: a
// simulated cluster allocates fast and keeps little, and collecting four times
// less often takes 17-20% off exploring the catalogue (measured with
// `ctrlsim run --checks 30` at GOGC 100 and 400, GOMAXPROCS=1).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// usageError is bad input: exit 2 with its one line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError ends the command with a code after the command printed its output.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

const usage = `usage: ctrlsim <command> [flags]

commands:
  list       the catalogue entries
  run        explore each (entry, variant); exit 0 iff every outcome is the expected one
  merge      merge the --json outputs (or pod logs) of the shards of one run into its result
  replay     run one plan and print verdicts, trace hash and (--timeline) the timeline
  catalogue  regenerate reports/ (--check: exit 1 and show the diff when it is stale)
  bench      throughput and time-to-find figures
  report     the markdown report of an operator test's saved plan (testdata/ctrlsim/<test>.plan), for an issue
  scaffold   write an operatortest test for a kubebuilder project (its scheme, CRDs, main.go's controllers, samples)

run 'ctrlsim <command> -h' for its flags`

func main() {
	// The explorer (rapid) reads testing.Short() and its own flags: register and
	// parse them (with no arguments: the command has flags of its own).
	testing.Init()
	_ = flag.CommandLine.Parse(nil)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// The envtest comparison runs a real controller-runtime manager, which warns
	// once on stderr when no logger is set.
	ctrllog.SetLogger(logr.Discard())
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without os.Exit, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "list":
		err = cmdList(args[1:], stdout)
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(args[1:], stdout)
	case "catalogue":
		err = cmdCatalogue(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "scaffold":
		err = cmdScaffold(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "ctrlsim: unknown command %q (want list, run, merge, replay, catalogue, bench, report or scaffold)\n", args[0])
		return 2
	}
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ctrlsim %s: %s\n", args[0], ue.msg)
		return 2
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "ctrlsim %s: %v\n", args[0], err)
		return 1
	}
}

// newFlags returns a flag set that reports errors as usageErrors instead of
// printing usage.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("ctrlsim "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags and refuses arguments; bad flags are usage errors; -h prints
// the flags.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return flagsParsed()
}

// parseFlags is parse for a command that takes arguments after its flags.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	return flagsParsed()
}

func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return err
		}
		return usagef("%v", err)
	}
	return nil
}

// afterFlags, when a test sets it, is called once a command's flags are
// parsed (and, for a command that takes none, its arguments refused): its
// error ends the command before it does anything, so that a test can check a
// command line the docs show without running it (docs_test.go).
var afterFlags func() error

func flagsParsed() error {
	if afterFlags != nil {
		return afterFlags()
	}
	return nil
}
