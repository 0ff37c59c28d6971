package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctrlsim/ctrlsim/internal/bench"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/internal/promobench"
	"github.com/ctrlsim/ctrlsim/scenarios"
)

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	report := fs.String("report", "", "also write the figures as markdown to this file (make bench: reports/bench.md)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	progress := func(what string) {
		if isTerminal(stderr) {
			fmt.Fprintf(stderr, "\r\033[Kbench: %s ...", what)
		}
	}
	f, err := bench.Run(scenarios.All(), envtestRatio, progress)
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if *report != "" {
		if err := os.WriteFile(*report, markdown(f), 0o644); err != nil {
			return usagef("cannot write report: %v", err)
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	_, err = stdout.Write(markdown(f))
	return err
}

// envtestRatio times one scripted promotion through three environments on envtest
// and on the simulator (internal/promobench), median of 3 rounds each.
func envtestRatio() (float64, string) {
	assets, err := envtestenv.Assets()
	if err != nil {
		return 0, "not measured: envtest assets missing (make envtest-assets): " + err.Error()
	}
	var real, sim []float64
	for range 3 {
		r, err := promobench.PromotionOnEnvtest(assets)
		if err != nil {
			return 0, "not measured: envtest run failed: " + err.Error()
		}
		s, err := promobench.PromotionOnSimulator()
		if err != nil {
			return 0, "not measured: simulator run failed: " + err.Error()
		}
		real, sim = append(real, r.Seconds()), append(sim, s.Seconds())
	}
	return median(real) / median(sim), ""
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func markdown(f *bench.Figures) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ctrlsim bench\n\n")
	fmt.Fprintf(&b, "Measured by `ctrlsim bench` (`make bench`) on %s/%s, %d CPUs, GOMAXPROCS=%d, %s, %s.\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.GOMAXPROCS, runtime.Version(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Each rate is the median of 5 rounds of 200 ms; ratios compare peers measured in the same run, interleaved.\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| figure\t value\t goal\t how\t")
	fmt.Fprintln(tw, "|---\t---\t---\t---\t")
	fmt.Fprintf(tw, "| api_ops_per_sec\t %.0f\t >= 200,000\t Get+Update pairs of a small custom resource through the model's client.Client\t\n", f.APIOpsPerSec)
	fmt.Fprintf(tw, "| speedup_vs_fake_client\t %.0fx (fake: %.0f/s)\t >= 20\t the same pairs through controller-runtime's client/fake, same run\t\n", f.SpeedupVsFakeClient, f.FakeClientOpsPerSec)
	fmt.Fprintf(tw, "| reconciles_per_sec\t %.0f\t >= 50,000\t trivial reconciler (RequeueAfter 1s, no API calls) over 100 objects\t\n", f.ReconcilesPerSec)
	fmt.Fprintf(tw, "| virtual_per_wall\t %.0f\t >= 100,000\t 10 objects failing every reconcile: backoff up to 1000s\t\n", f.VirtualPerWall)
	env := f.EnvtestNote
	if f.SpeedupVsEnvtest != nil {
		env = fmt.Sprintf("%.0fx", *f.SpeedupVsEnvtest)
	}
	fmt.Fprintf(tw, "| speedup_vs_envtest\t %s\t >= 1,000\t one pipeline promotion through three environments (promotion lag %s), envtest vs simulator, median of 3\t\n", env, promobench.BenchLag)
	fmt.Fprintf(tw, "| median_seconds_to_catch\t %.2f\t < 1\t median over the buggy variants below\t\n", f.MedianSecondsToCatch)
	tw.Flush()
	fmt.Fprintf(&b, "\n## Time to catch each buggy variant\n\nMedian over explorer seeds 1-5, at most 1000 plans each: the wall time to the first violating plan, and with shrinking it to a minimal plan.\n\n")
	fmt.Fprintf(&b, "| entry | median checks | median seconds to catch | median seconds with shrinking | caught from every seed |\n|---|---|---|---|---|\n")
	for _, c := range f.Catches {
		fmt.Fprintf(&b, "| %s | %.0f | %.3f | %.2f | %v |\n", c.Entry, c.MedianChecks, c.MedianSeconds, c.MedianSecondsWithShrink, c.CaughtFromAll)
	}
	return []byte(strings.ReplaceAll(b.String(), " |\n", " |\n"))
}
