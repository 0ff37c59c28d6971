// Package worldcost measures what the world's fidelity costs: namespace deletion
// and garbage collection of every kind, graceful pod termination, default API
// errors, seeded informer list order and the OpenAPI documents, against the
// world before them (Baseline, the commit before 7f5d150). For each of two
// example operators it builds the same test binary twice, from this checkout
// and from a temporary git worktree of Baseline, and runs the two in turn,
// Rounds times, each run a judged plan's test process: the operator's
// operatortest.Run test replaying one plan (-ctrlsim.plan), which builds the
// world, runs its fault-free references and the plan and judges it with every
// verdict. The figure is the CPU time (user and system, the process's
// rusage) of the current binary over the baseline's, round by round: the
// median and the range of those ratios, beside the goal set for it (at
// most Goal). ctrlsim bench reports it as a section of reports/bench.md
// (Markdown) and a row of its figures table (Value).
//
// # Known gaps
//
//   - It needs git and Baseline in the checkout's history, and the go command
//     to build both sides (the baseline's modules from the module cache or
//     the proxy); without them it says why in Figures.Note and measures
//     nothing.
//   - The current side is the working tree as it is, uncommitted changes
//     included (Figures.Current says so).
//   - CPU time on a shared machine still moves with the load (caches, other
//     processes' memory traffic): the rounds interleave the two sides, in
//     alternating order, so a change of load falls on both.
//   - Two operators, one plan each: the ratio of other operators and plans
//     (many namespaces, many pods) is not measured.
package worldcost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Baseline is the revision before that fidelity, as git names it:
// 7f5d150 (the OpenAPI documents) was the first of them, the others came
// after it.
const Baseline = "7f5d150^"

// Goal is the bound set on the ratio: a world at most 1.3 times as costly
// as the one before.
const Goal = 1.3

// DefaultRounds is how many times each binary runs (after one warm-up run
// each, not counted).
const DefaultRounds = 7

// Heading is the section's heading in reports/bench.md, and Figure the name
// of its row in the figures table.
const (
	Heading = "## The cost of the world's fidelity"
	Figure  = "world_fidelity_cost"
)

// Operator is one example operator's judged plan: the test (an
// operatortest.Run call, at both revisions) that replays Plan in Package.
type Operator struct {
	Name    string // as the table names it
	What    string // what its world holds and what the plan does
	Package string // relative to the module's root
	Test    string // the test function, the same at both revisions
	Plan    string // the plan's text
}

// Operators are the two operators measured: a small operator with an edit
// and a deletion of its seed object, and a CronJob-sized one with no
// workload steps.
var Operators = []Operator{
	{Name: "twowrites", What: "the fixed twowrites operator (a ConfigMap, two Secrets it owns); its seed ConfigMap edited at 5 s and deleted at 20 s",
		Package: "./examples/twowrites", Test: "TestTheFixedOperatorHolds",
		Plan: "seed 1\nat 5s mutate object=0 field=data.color value=\"blue\"\nat 20s delete object=0\n"},
	{Name: "cronjob", What: "the kubebuilder tutorial's CronJob with its sample (Forbid, 90 s Jobs), the job controller and the kubelet running its Jobs; no workload steps",
		Package: "./examples/cronjob", Test: "TestTheOperatorUnderOperatorTest",
		Plan: "seed 1\n"},
}

// Cost is one operator's figures: CPU seconds of each side's runs, paired
// by round, and the ratios current/baseline. Note says why it was not
// measured (then the figures are zero).
type Cost struct {
	Operator string `json:"operator"`
	What     string `json:"what"`
	Test     string `json:"test"`
	Plan     string `json:"plan"`
	// Current and Base are the CPU seconds of each round's run.
	Current []float64 `json:"current_cpu_seconds,omitempty"`
	Base    []float64 `json:"baseline_cpu_seconds,omitempty"`
	// CurrentMedian and BaseMedian are their medians; Ratio, Min and Max
	// the median, smallest and largest of the rounds' Current/Base.
	CurrentMedian float64 `json:"current_median_cpu_seconds"`
	BaseMedian    float64 `json:"baseline_median_cpu_seconds"`
	Ratio         float64 `json:"ratio"`
	Min           float64 `json:"min_ratio"`
	Max           float64 `json:"max_ratio"`
	Note          string  `json:"note,omitempty"`
}

// Within says whether the median ratio meets Goal.
func (c Cost) Within() bool { return c.Note == "" && c.Ratio <= Goal }

// Figures are one measurement: the revisions compared, the rounds and each
// operator's Cost, or Note saying why nothing was measured.
type Figures struct {
	Baseline       string `json:"baseline"`
	BaselineCommit string `json:"baseline_commit,omitempty"`
	// Current is the checkout's commit, "with uncommitted changes" when the
	// working tree differs from it.
	Current string `json:"current,omitempty"`
	Rounds  int    `json:"rounds"`
	Costs   []Cost `json:"costs,omitempty"`
	Note    string `json:"note,omitempty"`
	// Machine and Date say where and when (Machine set by the caller).
	Machine string `json:"machine,omitempty"`
	Date    string `json:"date,omitempty"`
	// Alone says the figures were measured on their own (ctrlsim bench
	// --only-world-cost) and merged into a report of an earlier run: the
	// section says so.
	Alone bool `json:"alone,omitempty"`
}

// Summarize pairs the rounds' CPU seconds (current[i] with base[i]) into
// op's Cost.
func Summarize(op Operator, current, base []float64) Cost {
	c := Cost{Operator: op.Name, What: op.What, Test: op.Test, Plan: op.Plan, Current: current, Base: base}
	n := min(len(current), len(base))
	if n == 0 {
		c.Note = "not measured: no rounds"
		return c
	}
	var ratios []float64
	for i := range n {
		if base[i] <= 0 {
			c.Note = fmt.Sprintf("not measured: round %d's baseline run took no CPU time", i+1)
			return c
		}
		ratios = append(ratios, current[i]/base[i])
	}
	c.CurrentMedian, c.BaseMedian = Median(current[:n]), Median(base[:n])
	c.Ratio, c.Min, c.Max = Median(ratios), slices.Min(ratios), slices.Max(ratios)
	return c
}

// Median is the middle value of xs (the mean of the two middle ones for an
// even count), 0 for none.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Unavailable is the figures when nothing could be measured: why, in one line.
func Unavailable(rounds int, why string) *Figures {
	return &Figures{Baseline: Baseline, Rounds: rounds, Note: "not measured: " + why}
}

// Value is the figures table's value and goal for the row Figure: the
// largest median ratio and its operator, or why there is none.
func Value(f *Figures) (value, goal string) {
	goal = fmt.Sprintf("<= %.1fx", Goal)
	if f == nil {
		return "not measured (--no-world-cost)", goal
	}
	if f.Note != "" {
		return cell(f.Note), goal
	}
	worst := -1
	for i, c := range f.Costs {
		if c.Note != "" {
			return cell(c.Operator + " " + c.Note), goal
		}
		if worst < 0 || c.Ratio > f.Costs[worst].Ratio {
			worst = i
		}
	}
	if worst < 0 {
		return "not measured", goal
	}
	c := f.Costs[worst]
	return fmt.Sprintf("%.2fx (%s; %.2f-%.2f)", c.Ratio, c.Operator, c.Min, c.Max), goal
}

// How is the figures table's description of the row Figure.
func How() string {
	return "CPU time of a judged plan's test process, this checkout over " + Baseline + " (before the world's fidelity), median of interleaved rounds; the more costly of the two operators below"
}

// Markdown is the section of reports/bench.md: its heading, how it was
// measured, and one row per operator (or the one line saying why nothing
// was measured).
func Markdown(f *Figures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n\n", Heading)
	if f == nil {
		b.WriteString("Not measured (--no-world-cost).\n")
		return b.String()
	}
	if f.Note != "" {
		fmt.Fprintf(&b, "%s%s.\n", strings.ToUpper(f.Note[:1]), f.Note[1:])
		return b.String()
	}
	base := Baseline
	if f.BaselineCommit != "" {
		base = fmt.Sprintf("%s (%s)", Baseline, short(f.BaselineCommit))
	}
	fmt.Fprintf(&b, "The world was made Kubernetes (namespace deletion and garbage collection of every kind, graceful pod termination, default API errors, seeded informer list order, OpenAPI documents) at a cost of at most %.1fx. "+
		"Measured by cmd/ctrlsim/internal/worldcost: the same test binary built (`go test -c`) at this checkout (%s) and at %s, from a temporary git worktree, each run as a judged plan's test process: the operator's operatortest.Run test replaying one plan (`-ctrlsim.plan`): the world built, its fault-free references, the run and every verdict. "+
		"The two sides run in turn, %d %s after one warm-up run each, alternating which goes first; the figure is each process's CPU time (user and system), current over baseline round by round, median (min-max), and each side's median CPU seconds.",
		Goal, f.Current, base, f.Rounds, plural(f.Rounds, "round", "rounds"))
	if f.Machine != "" {
		fmt.Fprintf(&b, " Measured on %s", f.Machine)
		if f.Date != "" {
			fmt.Fprintf(&b, ", %s", f.Date)
		}
		b.WriteString(".")
	}
	if f.Alone {
		b.WriteString(" Measured on its own (`ctrlsim bench --only-world-cost --report`) and merged into this report: the rest of it is from the run its first line names.")
	}
	b.WriteString("\n\n| operator | test and plan | CPU seconds, current | CPU seconds, baseline | current / baseline, median (min-max) | goal | met |\n|---|---|---|---|---|---|---|\n")
	for _, c := range f.Costs {
		plan := strings.ReplaceAll(strings.TrimSpace(c.Plan), "\n", " / ")
		what := fmt.Sprintf("%s: %s; plan `%s`", c.Test, c.What, plan)
		if c.Note != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | - | - | <= %.1fx | - |\n", c.Operator, what, cell(c.Note), Goal)
			continue
		}
		met := "no"
		if c.Within() {
			met = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.2fx (%.2f-%.2f) | <= %.1fx | %s |\n", c.Operator, what, c.CurrentMedian, c.BaseMedian, c.Ratio, c.Min, c.Max, Goal, met)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cell is s fit for a table's cell: no bar to end it.
func cell(s string) string { return strings.ReplaceAll(s, "|", "/") }

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// Measure builds and runs both sides from root (the module's root, in a git
// checkout): rounds rounds of each operator. Whatever fails is in the
// figures' Note or an operator's Note, never silently left out.
func Measure(root string, rounds int, progress func(string)) *Figures {
	if rounds < 1 {
		return Unavailable(rounds, fmt.Sprintf("%d rounds", rounds))
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if msg := lastLines(stderr.String(), 1); msg != "" {
				return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, msg)
			}
			return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return Unavailable(rounds, "no git checkout here (a copy without git history?): "+err.Error())
	}
	commit, err := git("rev-parse", "--verify", "--quiet", Baseline+"^{commit}")
	if err != nil {
		return Unavailable(rounds, "the baseline revision "+Baseline+" is not in this checkout's history (a shallow clone?): "+err.Error())
	}
	f := &Figures{Baseline: Baseline, BaselineCommit: commit, Rounds: rounds}
	f.Current, _ = git("rev-parse", "--short", "HEAD")
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && st != "" {
		f.Current += " with uncommitted changes"
	}
	rel, err := filepath.Rel(top, root)
	if err != nil {
		return Unavailable(rounds, err.Error())
	}
	tmp, err := os.MkdirTemp("", "ctrlsim-worldcost-")
	if err != nil {
		return Unavailable(rounds, err.Error())
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "baseline")
	progress("world cost: git worktree add --detach " + Baseline)
	if _, err := git("worktree", "add", "--detach", wt, commit); err != nil {
		return Unavailable(rounds, err.Error())
	}
	defer func() {
		if _, err := git("worktree", "remove", "--force", wt); err != nil {
			git("worktree", "prune")
		}
	}()
	baseRoot := filepath.Join(wt, rel)

	type side struct{ bin, dir string }
	type job struct {
		op        Operator
		plan      string
		cur, base side
		note      string
		c, b      []float64
	}
	var jobs []*job
	for _, op := range Operators {
		j := &job{op: op, plan: filepath.Join(tmp, op.Name+".plan")}
		jobs = append(jobs, j)
		if err := os.WriteFile(j.plan, []byte(op.Plan), 0o644); err != nil {
			j.note = "not measured: " + err.Error()
			continue
		}
		j.cur = side{filepath.Join(tmp, "current-"+op.Name+".test"), filepath.Join(root, op.Package)}
		j.base = side{filepath.Join(tmp, "baseline-"+op.Name+".test"), filepath.Join(baseRoot, op.Package)}
		for _, s := range []struct {
			name string
			dir  string
			bin  string
			env  []string
		}{{"current", root, j.cur.bin, nil}, {Baseline, baseRoot, j.base.bin, []string{"GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod")}}} {
			progress(fmt.Sprintf("world cost: go test -c %s at %s", op.Package, s.name))
			cmd := exec.Command("go", "test", "-c", "-o", s.bin, op.Package)
			cmd.Dir = s.dir
			cmd.Env = append(os.Environ(), s.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				j.note = fmt.Sprintf("not measured: go test -c %s at %s: %v: %s", op.Package, s.name, err, lastLines(string(out), 2))
				break
			}
		}
	}
	run := func(j *job, s side) (float64, error) {
		cmd := exec.Command(s.bin, "-test.run=^"+j.op.Test+"$", "-test.count=1", "-ctrlsim.plan="+j.plan)
		cmd.Dir = s.dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%s -test.run=^%s$: %v: %s", filepath.Base(s.bin), j.op.Test, err, lastLines(out.String(), 2))
		}
		if !strings.Contains(out.String(), "PASS") {
			return 0, fmt.Errorf("%s -test.run=^%s$ ran no test: %s", filepath.Base(s.bin), j.op.Test, lastLines(out.String(), 2))
		}
		ps := cmd.ProcessState
		return (ps.UserTime() + ps.SystemTime()).Seconds(), nil
	}
	// Round 0 warms up (the binaries read from disk, the world's caches
	// built for the first time on this machine): not counted.
	for r := 0; r <= rounds; r++ {
		for _, j := range jobs {
			if j.note != "" {
				continue
			}
			progress(fmt.Sprintf("world cost: %s, round %d of %d", j.op.Name, r, rounds))
			order := []side{j.base, j.cur}
			if r%2 == 1 {
				order = []side{j.cur, j.base}
			}
			var secs [2]float64
			for k, s := range order {
				t, err := run(j, s)
				if err != nil {
					j.note = "not measured: " + err.Error()
					break
				}
				secs[k] = t
			}
			if j.note != "" || r == 0 {
				continue
			}
			if r%2 == 1 {
				secs[0], secs[1] = secs[1], secs[0]
			}
			j.b, j.c = append(j.b, secs[0]), append(j.c, secs[1])
		}
	}
	for _, j := range jobs {
		if j.note != "" {
			f.Costs = append(f.Costs, Cost{Operator: j.op.Name, What: j.op.What, Test: j.op.Test, Plan: j.op.Plan, Note: j.note})
			continue
		}
		f.Costs = append(f.Costs, Summarize(j.op, j.c, j.b))
	}
	f.Date = time.Now().UTC().Format("2006-01-02")
	return f
}

// Notes are the lines saying what was not measured, for stderr.
func Notes(f *Figures) []string {
	if f == nil {
		return nil
	}
	if f.Note != "" {
		return []string{"world cost: " + f.Note}
	}
	var out []string
	for _, c := range f.Costs {
		if c.Note != "" {
			out = append(out, "world cost: "+c.Operator+": "+c.Note)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
