package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/bench"
	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/promobench"
	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/worldcost"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/scenarios"
)

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	noEnvtest := fs.Bool("no-envtest", false, "skip speedup_vs_envtest (it waits over four minutes on the wall clock)")
	noOperatortest := fs.Bool("no-operatortest", false, "skip the operatortest figures (they run go test ./cmd/ctrlsim/internal/bench with every core, several minutes)")
	noWorldCost := fs.Bool("no-world-cost", false, "skip the cost of the world's fidelity (it builds two test binaries per operator, one from a git worktree of "+worldcost.Baseline+")")
	onlyWorldCost := fs.Bool("only-world-cost", false, "measure only the cost of the world's fidelity; with --report, merge its section and row into that existing report")
	onlyOperatortest := fs.Bool("only-operatortest", false, "measure only the operatortest figures; with --report, replace their section in that existing report")
	worldCostRounds := fs.Int("world-cost-rounds", worldcost.DefaultRounds, "rounds of the world's cost: each side's test binary runs this many times per operator, in turn")
	report := fs.String("report", "", "also write the figures as markdown to this file (make bench: reports/bench.md)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *noWorldCost && *onlyWorldCost || *onlyOperatortest && (*onlyWorldCost || *noOperatortest) {
		return usagef("--only-operatortest, --only-world-cost and --no-operatortest exclude each other, as do --no-world-cost and --only-world-cost")
	}
	progress := func(what string) {
		if isTerminal(stderr) {
			fmt.Fprintf(stderr, "\r\033[Kbench: %s ...", what)
		}
	}
	worldCost := func() *worldcost.Figures {
		root, err := os.Getwd()
		var wc *worldcost.Figures
		if err != nil {
			wc = worldcost.Unavailable(*worldCostRounds, err.Error())
		} else {
			wc = worldcost.Measure(root, *worldCostRounds, progress)
		}
		wc.Machine = machineName()
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		for _, n := range worldcost.Notes(wc) {
			fmt.Fprintf(stderr, "bench: %s\n", n)
		}
		return wc
	}
	if *onlyWorldCost {
		return benchWorldCostOnly(worldCost, *report, *jsonOut, stdout)
	}
	if *onlyOperatortest {
		return benchOperatortestOnly(progress, *report, *jsonOut, stdout)
	}
	envtest := envtestComparisons
	if *noEnvtest {
		envtest = nil
	}
	machine := machineName()
	f, err := bench.Run(scenarios.All(), envtest, progress)
	if err == nil {
		if *noOperatortest {
			f.OperatortestNote = "not measured (--no-operatortest)"
		} else {
			f.Operatortest, f.OperatortestNote = bench.MeasureOperatortest(progress)
		}
	}
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if !*noWorldCost {
		f.WorldCost = worldCost()
	}
	f.Machine = machine
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

// envtestComparisons times the scripted promotion of cmd/ctrlsim/internal/promobench on
// envtest and on the simulator: under the catalogue's timing (one envtest round:
// it waits over four minutes) and with no waiting (three envtest rounds). The
// simulator side is the median of simRounds runs after one warm-up run.
func envtestComparisons(progress func(string)) ([]bench.EnvtestComparison, string) {
	assets, err := envtestenv.Assets()
	if err != nil {
		return nil, "not measured: envtest assets missing (make envtest-assets): " + err.Error()
	}
	const simRounds = 21
	var out []bench.EnvtestComparison
	for _, w := range []struct {
		name   string
		timing promobench.Timing
		rounds int
	}{{"catalogue", promobench.Catalogue, 1}, {"no-wait", promobench.NoWait, 3}} {
		c := bench.EnvtestComparison{Name: w.name, Timing: w.timing.String(), EnvtestRounds: w.rounds, SimulatorRounds: simRounds}
		var real, sim []float64
		// The simulator first: the envtest rounds leave a manager's garbage behind.
		progress(fmt.Sprintf("simulator, %s timing", w.name))
		runtime.GC()
		for i := range simRounds + 1 {
			s, err := promobench.PromotionOnSimulator(w.timing)
			if err != nil {
				return nil, "not measured: simulator run failed: " + err.Error()
			}
			if i > 0 { // the first run warms up
				sim = append(sim, s.Seconds())
			}
		}
		for i := range w.rounds {
			progress(fmt.Sprintf("envtest, %s timing (%s), round %d of %d", w.name, w.timing, i+1, w.rounds))
			r, err := promobench.PromotionOnEnvtest(assets, w.timing)
			if err != nil {
				return nil, "not measured: envtest run failed: " + err.Error()
			}
			real = append(real, r.Seconds())
		}
		c.EnvtestSeconds, c.SimulatorSeconds = median(real), median(sim)
		c.Speedup = c.EnvtestSeconds / c.SimulatorSeconds
		out = append(out, c)
	}
	return out, ""
}

// machineName is the machine's CPU model, its CPUs and its load average
// (over 1, 5 and 15 minutes) now: the figures are wall time on it.
func machineName() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	out := fmt.Sprintf("%s, %s/%s, %d CPUs", model, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			out += fmt.Sprintf(", load average %s %s %s at the start", f[0], f[1], f[2])
		}
	}
	if h, err := os.Hostname(); err == nil {
		out = "host " + h + ": " + out
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func markdown(f *bench.Figures) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ctrlsim bench\n\n")
	machine := f.Machine
	if machine == "" {
		machine = fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	}
	fmt.Fprintf(&b, "Measured by `ctrlsim bench` (`make bench`) on %s; GOMAXPROCS=%d but for the operatortest figures (every core); %s, %s.\n",
		machine, f.GOMAXPROCS, runtime.Version(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Each rate is the median of 5 rounds of 200 ms; ratios compare peers measured in the same run, interleaved.\n\n")
	rows := []figureRow{
		{"api_ops_per_sec", fmt.Sprintf("%.0f", f.APIOpsPerSec), ">= 200,000", "Get+Update pairs of a small custom resource through the model's client.Client"},
		{"speedup_vs_fake_client", fmt.Sprintf("%.0fx (fake: %.0f/s)", f.SpeedupVsFakeClient, f.FakeClientOpsPerSec), ">= 20", "the same pairs through controller-runtime's client/fake, same run"},
		{"reconciles_per_sec", fmt.Sprintf("%.0f", f.ReconcilesPerSec), ">= 50,000", "trivial reconciler (RequeueAfter 1s, no API calls) over 100 objects"},
		{"virtual_per_wall", fmt.Sprintf("%.0f", f.VirtualPerWall), ">= 100,000", "10 objects failing every reconcile: backoff up to 1000s"},
	}
	env, noWait := f.EnvtestNote, f.EnvtestNote
	if f.SpeedupVsEnvtest != nil {
		env = fmt.Sprintf("%.0fx", *f.SpeedupVsEnvtest)
	}
	if f.SpeedupVsEnvtestNoWait != nil {
		noWait = fmt.Sprintf("%.0fx", *f.SpeedupVsEnvtestNoWait)
	}
	if env == "" {
		env, noWait = "not measured (--no-envtest)", "not measured (--no-envtest)"
	}
	rows = append(rows,
		figureRow{"speedup_vs_envtest", env, ">= 1,000", fmt.Sprintf("one pipeline promotion through three environments as the catalogue explores it (%s), envtest vs simulator", promobench.Catalogue)},
		figureRow{"speedup_vs_envtest_no_wait", noWait, "-", "the same promotion taking no time: API and controller work only"},
		figureRow{"median_seconds_to_catch", fmt.Sprintf("%.2f", f.MedianSecondsToCatch), "< 1", "median over the buggy variants below"},
		worldCostRow(f.WorldCost))
	b.WriteString(figureTable(rows))
	if len(f.Envtest) > 0 {
		fmt.Fprintf(&b, "\n## Envtest against the simulator\n\n")
		fmt.Fprintf(&b, "The scripted workload of cmd/ctrlsim/internal/promobench: scenarios/pipeline's world (namespaces dev, staging and prod with the HelmRelease podinfo at v1, the Pipeline podinfo) written by the admin, the fixed pipeline controller started (on envtest in a real manager with its SetupWithManager), v2 published in dev, until the promotion of v2 to prod has taken effect. ")
		fmt.Fprintf(&b, "Envtest waits for the promotion system on the wall clock, the simulator on its virtual clock. Envtest's start-up is not counted; on the simulator the time is operatortest.Replay's with no oracle (pipeline.Test): building the world from its manifests and the run to its end (it does not stop at the effect, as the envtest side does). Each side's time is the median of its rounds.\n\n")
		fmt.Fprintf(&b, "| workload | timing | envtest seconds (rounds) | simulator seconds (rounds) | speedup |\n|---|---|---|---|---|\n")
		for _, c := range f.Envtest {
			fmt.Fprintf(&b, "| %s | %s | %.3f (%d) | %.5f (%d) | %.0fx |\n", c.Name, c.Timing, c.EnvtestSeconds, c.EnvtestRounds, c.SimulatorSeconds, c.SimulatorRounds, c.Speedup)
		}
	}
	b.WriteString(operatortestMarkdown(f))
	b.WriteString(worldcost.Markdown(f.WorldCost))
	fmt.Fprintf(&b, "\n## Time to catch each buggy variant\n\nMedian over explorer seeds 1-5, at most 1000 plans each: the wall time to the first violating plan, and with shrinking it to a minimal plan.\n\n")
	fmt.Fprintf(&b, "| entry | median checks | median seconds to catch | median seconds with shrinking | caught from every seed |\n|---|---|---|---|---|\n")
	for _, c := range f.Catches {
		fmt.Fprintf(&b, "| %s | %.0f | %.3f | %.2f | %v |\n", c.Entry, c.MedianChecks, c.MedianSeconds, c.MedianSecondsWithShrink, c.CaughtFromAll)
	}
	return []byte(strings.ReplaceAll(b.String(), " |\n", " |\n"))
}

// operatortestMarkdown is the operatortest section of the report.
func operatortestMarkdown(f *bench.Figures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## operatortest\n\n")
	o := f.Operatortest
	if o == nil {
		fmt.Fprintf(&b, "%s.\n", f.OperatortestNote)
		return b.String()
	}
	if f.OperatortestAlone != "" {
		fmt.Fprintf(&b, "Measured on its own on %s (`ctrlsim bench --only-operatortest --report`) and merged into this report: the rest of it is from the run its first line names.\n\n", f.OperatortestAlone)
	}
	fmt.Fprintf(&b, "operatortest's own cost, measured by cmd/ctrlsim/internal/bench's TestOperatortestFigures: explorations of example operators as their tests give them (operatortest's default Options), with one worker (the test's own process) and with %d worker processes (every core, Options.Workers; the same plans, the same results). Wall time from the call of operatortest.Explore to its result: the workers' start-up, the preflight run, and shrinking included. Each process simulates on one P at GOGC=400, as every operatortest test does unless its environment sets GOMAXPROCS or GOGC (operatortest/cores.go).\n\n", o.Workers)
	fmt.Fprintf(&b, "| correct operator | plans | plans/s, 1 worker | plans/s, %d workers | speedup | targeted plans run (the sweep, beside the random plans) |\n|---|---|---|---|---|---|\n", o.Workers)
	for _, t := range o.Throughput {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.2fx | %s |\n", t.Operator, t.Plans, t.OneCore, t.AllCores, t.AllCores/t.OneCore, cmp.Or(t.Targeted, "-"))
	}
	fmt.Fprintf(&b, "\nEach example's bug (its buggy twin), explorer seeds 1-%d, at most the plans the row names: medians of the plans to the first failing plan, and of the wall seconds to it and to the minimal plan (the whole exploration), with 1 worker and with %d. "+
		"Shrinking runs in the test's process whatever the workers; with 1 worker, the medians of its time over the time to find, of the candidates rapid's shrinker tried and of the runs they cost (a candidate drawn before is recalled; a new one runs with the fault-free references of its seed and workload, recalled too, and the runs that judge it again). "+
		"A row whose targeted plans are \"none\" found its bug by random plans alone: bigrecreate's faults narrowed to lagging watches, a class the sweep has no plans for, is the large operator (thousands of stale pairs) whose shrink starts from a random plan's faults; with default Options and 100 plans, its sweep's targeted plans take turns with the random ones, and \"found by\" says, seed by seed, the plan that found the bug and whether it was random or targeted (its class).\n\n", 5, o.Workers)
	fmt.Fprintf(&b, "| bug | max plans | median plans | to first failure, 1 worker | to minimal plan, 1 worker | to first failure, %d workers | to minimal plan, %d workers | shrink / find | shrink candidates | shrink runs | caught from every seed | targeted plans run, seed 1 | found by, each seed |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", o.Workers, o.Workers)
	for _, c := range o.Bugs {
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.2f s | %.2f s | %.2f s | %.2f s | %.1f | %.0f | %.0f | %v | %s | %s |\n", c.Bug, cmp.Or(c.MaxPlans, 1000), c.MedianPlans, c.OneWorker.ToFirstFailure, c.OneWorker.ToMinimalPlan,
			c.AllWorkers.ToFirstFailure, c.AllWorkers.ToMinimalPlan, c.ShrinkOverFind, c.ShrinkCandidates, c.ShrinkRuns, c.CaughtFromAll, cmp.Or(c.Targeted, "-"), cmp.Or(strings.Join(c.Found, "; "), "-"))
	}
	b.WriteString(targetsMarkdown(o))
	b.WriteString(profilesMarkdown(o))
	b.WriteString("\n### Against envtest, the same operator and workload\n\n")
	if e := o.Envtest; e != nil {
		fmt.Fprintf(&b, "The %s operator serving its seed ConfigMap until both its Secrets exist, %d rounds on each side, interleaved in one run (medians, wall seconds). "+
			"On envtest a round is a fresh namespace, the operator's manager built and started with its SetupWithManager, the ConfigMap created and the Secrets polled for every millisecond (envtest's own start-up not counted). "+
			"On operatortest a round is one plan with no faults and no workload steps, replayed and judged by operatortest.Replay: the world built, its fault-free reference runs, the run to the end of its heal budget and every verdict, more work than the envtest round.\n\n", e.Operator, e.Rounds)
		fmt.Fprintf(&b, "| operator | envtest seconds | operatortest seconds (judged plan) | ratio |\n|---|---|---|---|\n")
		fmt.Fprintf(&b, "| %s | %.3f | %.4f | %.0fx |\n", e.Operator, e.Envtest, e.Operatortest, e.Ratio)
	} else {
		fmt.Fprintf(&b, "%s.\n", o.EnvtestNote)
	}
	return b.String()
}

// targetsMarkdown sets the figures above beside the speed targets.
func targetsMarkdown(o *bench.Operatortest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Against the targets\n\n")
	fmt.Fprintf(&b, "The targets, on this machine's %d cores, medians over the seeds: each example bug caught and shrunk in under %d s (the faster of 1 and %d workers), its shrink at most %dx the time to find it, a small correct operator explored at 500 plans a second or more with every core, a CronJob-sized one at 20 or more. Where a target is missed, the profiles below say where the time goes.\n\n",
		o.Workers, bench.GoalSecondsToMinimal, o.Workers, bench.GoalShrinkOverFind)
	fmt.Fprintf(&b, "| target | goal | reached | met |\n|---|---|---|---|\n")
	met := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	for _, t := range o.Throughput {
		if t.Goal > 0 {
			fmt.Fprintf(&b, "| %s explored, plans/s on %d workers | >= %.0f | %.1f | %s |\n", t.Operator, o.Workers, t.Goal, t.AllCores, met(t.AllCores >= t.Goal))
		}
	}
	for _, c := range o.Bugs {
		best := min(c.OneWorker.ToMinimalPlan, c.AllWorkers.ToMinimalPlan)
		fmt.Fprintf(&b, "| %s bug caught and shrunk | < %d s | %.2f s | %s |\n", c.Bug, bench.GoalSecondsToMinimal, best, met(c.CaughtFromAll && best < bench.GoalSecondsToMinimal))
		fmt.Fprintf(&b, "| %s bug's shrink / find | <= %d | %.1f | %s |\n", c.Bug, bench.GoalShrinkOverFind, c.ShrinkOverFind, met(c.ShrinkOverFind <= bench.GoalShrinkOverFind))
	}
	return b.String()
}

// profilesMarkdown shows where the CPU time of the profiled explorations
// went, by phase and part (cmd/ctrlsim/internal/bench/profile.go).
func profilesMarkdown(o *bench.Operatortest) string {
	if len(o.Profiles) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Where the CPU time goes\n\n")
	fmt.Fprintf(&b, "CPU profiles (runtime/pprof) of two of the explorations above, in the test's process. Each run operatortest simulates labels its goroutines with what it was for (world.LabelPhase: find, shrink, preflight; `go tool pprof -tagfocus ctrlsim.phase=shrink` shows one); a sample counts for the part of the simulation named by the innermost frame of its stack that has one (cmd/ctrlsim/internal/bench/profile.go: the runtime's allocation and copying count for their caller, an API call inside a reconcile for the API server). The runtime's work on its own stacks carries no label (the collector's background work, part of each goroutine switch): it is counted between runs, with the exploration's own work. CPU seconds, and the share of the exploration's.\n")
	for _, p := range o.Profiles {
		fmt.Fprintf(&b, "\n%s: %.1f CPU seconds.\n\n", p.Exploration, p.Seconds)
		fmt.Fprintf(&b, "| part |")
		for _, ph := range p.Phases {
			fmt.Fprintf(&b, " %s |", ph.Name)
		}
		fmt.Fprintf(&b, " all |\n|---|%s---|\n", strings.Repeat("---|", len(p.Phases)))
		total := map[string]float64{}
		for _, ph := range p.Phases {
			for _, s := range ph.Parts {
				total[s.Part] += s.Seconds
			}
		}
		names := bench.PartNames()
		sort.SliceStable(names, func(i, j int) bool { return total[names[i]] > total[names[j]] })
		share := func(secs float64) string {
			if secs == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f s (%.0f%%)", secs, 100*secs/p.Seconds)
		}
		for _, name := range names {
			if total[name] == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s |", name)
			for _, ph := range p.Phases {
				var secs float64
				for _, s := range ph.Parts {
					if s.Part == name {
						secs = s.Seconds
					}
				}
				fmt.Fprintf(&b, " %s |", share(secs))
			}
			fmt.Fprintf(&b, " %s |\n", share(total[name]))
		}
		fmt.Fprintf(&b, "| all |")
		for _, ph := range p.Phases {
			fmt.Fprintf(&b, " %s |", share(ph.Seconds))
		}
		fmt.Fprintf(&b, " %s |\n", share(p.Seconds))
		var largest []string
		for _, name := range names[:min(3, len(names))] {
			if total[name] > 0 {
				largest = append(largest, fmt.Sprintf("%s (%.0f%%)", name, 100*total[name]/p.Seconds))
			}
		}
		fmt.Fprintf(&b, "\nLargest parts: %s.\n", strings.Join(largest, "; "))
	}
	return b.String()
}

// figureRow is one row of the report's figures table: figure, value, goal,
// how.
type figureRow [4]string

// figureTable is the report's figures table, its columns aligned.
func figureTable(rows []figureRow) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| figure\t value\t goal\t how\t")
	fmt.Fprintln(tw, "|---\t---\t---\t---\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "| %s\t %s\t %s\t %s\t\n", r[0], r[1], r[2], r[3])
	}
	tw.Flush()
	return b.String()
}

// worldCostRow is the figures table's row for the world's cost against
// the fidelity baseline (cmd/ctrlsim/internal/worldcost).
func worldCostRow(wc *worldcost.Figures) figureRow {
	value, goal := worldcost.Value(wc)
	return figureRow{worldcost.Figure, value, goal, worldcost.How()}
}

// benchWorldCostOnly measures the world's cost alone: printed as JSON or
// as its section, and with report merged into that existing file (its
// section and its row of the figures table replaced or added, the rest as
// it was).
func benchWorldCostOnly(measure func() *worldcost.Figures, report string, jsonOut bool, stdout io.Writer) error {
	var old []byte
	if report != "" {
		var err error
		if old, err = os.ReadFile(report); err != nil {
			return usagef("--only-world-cost merges into an existing report: %v", err)
		}
		if _, err := mergeWorldCost(old, worldcost.Unavailable(0, "")); err != nil {
			return usagef("--only-world-cost: %s: %v", report, err)
		}
	}
	wc := measure()
	if report != "" {
		wc.Alone = true
		merged, err := mergeWorldCost(old, wc)
		if err != nil {
			return usagef("--only-world-cost: %s: %v", report, err)
		}
		if err := os.WriteFile(report, merged, 0o644); err != nil {
			return usagef("cannot write report: %v", err)
		}
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(wc)
	}
	_, err := io.WriteString(stdout, strings.TrimPrefix(worldcost.Markdown(wc), "\n"))
	return err
}

// benchOperatortestOnly measures the operatortest figures alone and, with a
// report, puts their section in place of the report's.
func benchOperatortestOnly(progress func(string), report string, jsonOut bool, stdout io.Writer) error {
	var old []byte
	if report != "" {
		var err error
		if old, err = os.ReadFile(report); err != nil {
			return usagef("--only-operatortest merges into an existing report: %v", err)
		}
		if _, err := mergeOperatortest(old, &bench.Figures{OperatortestNote: "not measured"}); err != nil {
			return usagef("--only-operatortest: %s: %v", report, err)
		}
	}
	f := &bench.Figures{}
	machine := machineName() // at the start, as a whole run's first line has it
	f.Operatortest, f.OperatortestNote = bench.MeasureOperatortest(progress)
	if f.Operatortest == nil {
		return fmt.Errorf("--only-operatortest: %s", f.OperatortestNote) // the report keeps its figures
	}
	f.OperatortestAlone = time.Now().UTC().Format("2006-01-02") + " on " + machine
	if report != "" {
		merged, err := mergeOperatortest(old, f)
		if err != nil {
			return usagef("--only-operatortest: %s: %v", report, err)
		}
		if err := os.WriteFile(report, merged, 0o644); err != nil {
			return usagef("cannot write report: %v", err)
		}
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f.Operatortest)
	}
	_, err := io.WriteString(stdout, strings.TrimPrefix(operatortestMarkdown(f), "\n"))
	return err
}

// mergeOperatortest puts f's operatortest section in place of report's (the
// text from its heading to the next section's).
func mergeOperatortest(report []byte, f *bench.Figures) ([]byte, error) {
	text := string(report)
	i := strings.Index(text, "\n## operatortest\n")
	if i < 0 {
		return nil, errors.New("no operatortest section (a line \"## operatortest\")")
	}
	end := len(text)
	if j := strings.Index(text[i+1:], "\n## "); j >= 0 {
		end = i + 1 + j
	}
	return []byte(text[:i] + operatortestMarkdown(f) + text[end:]), nil
}

// mergeWorldCost puts wc into a report ctrlsim bench wrote: its row of the
// figures table (replaced, or added last; the table aligned again) and its
// section (replaced, or added before "## Time to catch each buggy variant",
// or at the end).
func mergeWorldCost(report []byte, wc *worldcost.Figures) ([]byte, error) {
	lines := strings.SplitAfter(string(report), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| figure ") })
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "|---") {
		return nil, errors.New("no figures table (a line \"| figure | value | goal | how |\" and its rule)")
	}
	end := start + 2
	var rows []figureRow
	replaced := false
	for ; end < len(lines) && strings.HasPrefix(lines[end], "|"); end++ {
		cells := strings.Split(strings.TrimSpace(lines[end]), "|")
		if len(cells) != 6 {
			return nil, fmt.Errorf("figures table line %q: want 4 cells", strings.TrimSpace(lines[end]))
		}
		var r figureRow
		for i := range r {
			r[i] = strings.TrimSpace(cells[i+1])
		}
		if r[0] == worldcost.Figure {
			r, replaced = worldCostRow(wc), true
		}
		rows = append(rows, r)
	}
	if !replaced {
		rows = append(rows, worldCostRow(wc))
	}
	text := strings.Join(lines[:start], "") + figureTable(rows) + strings.Join(lines[end:], "")
	section := worldcost.Markdown(wc)
	if i := strings.Index(text, "\n"+worldcost.Heading+"\n"); i >= 0 {
		j := strings.Index(text[i+1:], "\n## ")
		if j < 0 {
			return []byte(text[:i] + section), nil
		}
		return []byte(text[:i] + section + text[i+1+j:]), nil
	}
	if i := strings.Index(text, "\n## Time to catch each buggy variant\n"); i >= 0 {
		return []byte(text[:i] + section + text[i:]), nil
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return []byte(text + section), nil
}
