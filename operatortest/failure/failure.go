package failure

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The failure an operator author reads: the timeline led by the operator's
// own processes (the built-in ones folded), the story of the run drawn as a
// labelled SVG and a self-contained HTML inspector, what each fault of the
// plan stands for on a real cluster, and a markdown report that reads on its
// own (for an upstream issue). The plan is saved under testdata/ctrlsim, to
// commit (a regression test, as go fuzzing keeps its corpus there); the
// story files go to the artifacts directory (-ctrlsim.artifacts, else
// $CTRLSIM_ARTIFACTS, else a fresh temporary directory the failure names),
// under the package's directory in its module: they are what a run made,
// not inputs.

var FlagArtifacts = flag.String("ctrlsim.artifacts", "", "operatortest: the directory a failure writes its story to (.svg, .html, .md), under the package's path in its module; default $CTRLSIM_ARTIFACTS, else a fresh temporary directory (the failure names it). The plan stays in testdata/ctrlsim")

var flagTimeline = flag.String("ctrlsim.timeline", "", `operatortest: "full" prints every step of a failing run's timeline, and of a holding plan's replayed with -ctrlsim.plan (by default the built-in processes' start-up and their steps on objects the operator never touched are folded into one line each); CTRLSIM_TIMELINE=full does the same`)

// FullTimeline reports whether the author asked for every step.
func FullTimeline() bool {
	return *flagTimeline == "full" || os.Getenv("CTRLSIM_TIMELINE") == "full"
}

// touchedObjects are the objects the operator's processes read, wrote or
// reconciled: "Kind ns/name" for calls, "ns/name" for reconciles.
func touchedObjects(steps []trace.Step, operators []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range steps {
		if s.Object != "" && slices.Contains(operators, s.Process) {
			out[s.Object] = true
			if _, name, ok := strings.Cut(s.Object, " "); ok {
				out[name] = true // a reconcile of a built-in controller names no kind
			}
		}
	}
	return out
}

// builtin reports whether a step is a built-in process's (kube-controller-
// manager, the kubelet): neither the operator's, the admin's nor the kernel's.
func builtin(s trace.Step, operators []string) bool {
	return s.Process != "" && s.Process != "admin" && !slices.Contains(operators, s.Process)
}

// startUp reports whether a step is a process's start-up: its start or
// restart, or a line logged outside any reconcile ("Starting Controller").
func startUp(s trace.Step) bool {
	return s.Reconcile == 0 && (s.Op == "start" || s.Op == "restart" || s.Op == "log" || s.Op == "runnable")
}

// FoldTimeline is the timeline a failure prints: every step of the
// operator's processes, the workload, the faults and the admin, and of the
// built-in processes only the steps on objects the operator touched; the
// rest is counted in one line per built-in process, first. full keeps every
// step.
func FoldTimeline(steps []trace.Step, operators []string, full bool) []string {
	var out []string
	if full {
		for _, s := range steps {
			out = append(out, s.String())
		}
		return out
	}
	touched := touchedObjects(steps, operators)
	type folded struct{ startUp, other int }
	counts := map[string]*folded{}
	var procs []string
	var kept []string
	for _, s := range steps {
		if !builtin(s, operators) || touched[s.Object] {
			kept = append(kept, s.String())
			continue
		}
		f := counts[s.Process]
		if f == nil {
			f = &folded{}
			counts[s.Process] = f
			procs = append(procs, s.Process)
		}
		if startUp(s) {
			f.startUp++
		} else {
			f.other++
		}
	}
	for _, p := range procs {
		f := counts[p]
		out = append(out, fmt.Sprintf("%10s  %s: %d start-up line%s, %d step%s on other objects (folded; -ctrlsim.timeline=full or CTRLSIM_TIMELINE=full shows them)",
			"", p, f.startUp, world.Plural(f.startUp), f.other, world.Plural(f.other)))
	}
	return append(out, kept...)
}

// manifest is the index of the step where a fault of the plan shows in the
// run (a crash, a restart onto a lagging apiserver, a held watch, an API
// fault's start), or -1 when it never did (a lag, latency, more workers:
// they shape every step rather than one).
func manifest(f plan.Fault, steps []trace.Step) int {
	for i, s := range steps {
		switch f.Kind {
		case plan.Crash:
			if s.Process == f.Process && s.Op == "crash" && (f.At == 0 || s.At >= f.At) {
				return i
			}
		case plan.Stale:
			if s.Process == f.Process && s.Op == "stale" {
				return i
			}
		case plan.Unobserved:
			if s.Process == f.Process && s.Op == "unobserved" {
				return i // its window opens
			}
		case plan.Hold:
			if s.Process == f.Process && s.Op == "hold" && (f.Resource == "*" || strings.HasSuffix(f.Resource, "/"+strings.TrimPrefix(s.Object, "*"))) {
				return i
			}
		case plan.API:
			if s.Op == "fault" && s.Process == "" {
				return i
			}
		}
	}
	return -1
}

// whatHappened says in a sentence what the fault did in this run.
func whatHappened(f plan.Fault, steps []trace.Step, at int) string {
	if at < 0 {
		return faultSummary(f)
	}
	s := steps[at]
	switch f.Kind {
	case plan.Crash:
		if f.Write > 0 {
			// The write it died after is its last call before the crash.
			for i := at - 1; i >= 0; i-- {
				if w := steps[i]; w.Process == f.Process && trace.IsWrite(w.Op) {
					return fmt.Sprintf("%s died at %v right after its write %d had committed (%s %s), before the response reached it", f.Process, s.At, f.Write, w.Op, w.Object)
				}
			}
		}
		if f.Call > 0 {
			return fmt.Sprintf("%s died at %v, at its client call %d (the call never reached the apiserver)", f.Process, s.At, f.Call)
		}
		return fmt.Sprintf("%s died at %v (%s)", f.Process, s.At, s.Result)
	case plan.Stale:
		return fmt.Sprintf("%s restarted at %v, and %s", f.Process, s.At, s.Result)
	case plan.Hold:
		return fmt.Sprintf("%s's watch of %s delivered nothing from %v to %v, then caught up", f.Process, f.Resource, f.From, f.Until)
	case plan.Unobserved:
		return fmt.Sprintf("from %v %s", s.At, unobservedSummary(f))
	case plan.API:
		return fmt.Sprintf("from %v the apiserver answered %s", s.At, strings.TrimPrefix(s.Result, "api "))
	}
	return faultSummary(f)
}

func faultSummary(f plan.Fault) string {
	switch f.Kind {
	case plan.Lag:
		return fmt.Sprintf("%s's cache of %s saw each change %v to %v after it was committed", f.Process, f.Resource, f.Min, f.Max)
	case plan.Latency:
		return fmt.Sprintf("each API call of %s took %v to %v", f.Process, f.Min, f.Max)
	case plan.Workers:
		return fmt.Sprintf("%s ran %d workers", f.Controller, f.N)
	case plan.NotReady:
		return fmt.Sprintf("pod %d never became ready until the heal", f.Pod)
	case plan.CrashLoop:
		return fmt.Sprintf("pod %d's containers exited with code 1 after each start until the heal", f.Pod)
	case plan.PodFail:
		return fmt.Sprintf("pod %d's containers exited with code 1 once", f.Pod)
	case plan.NodeLost:
		return fmt.Sprintf("node %s stopped reporting at %v", f.Node, f.At)
	case plan.Stop:
		return fmt.Sprintf("%s stopped cleanly at %v (between reconciles) and started again at %v", f.Process, f.From, f.Until)
	case plan.Unobserved:
		return unobservedSummary(f) + " (no change of it fell in the window)"
	}
	return f.String()
}

// unobservedSummary says what an unobserved fault kept from its process.
func unobservedSummary(f plan.Fault) string {
	from, until := "from its creation", "until its deletion or the heal"
	if f.FromRev != 0 {
		from = fmt.Sprintf("from its change to resourceVersion %d", f.FromRev)
	}
	if f.UntilRev != 0 {
		until = fmt.Sprintf("until its change to resourceVersion %d (or its deletion, or the heal)", f.UntilRev)
	}
	return fmt.Sprintf("%s never saw %s %s %s %s: its informers got none of those changes, and its lists showed the state before them", f.Process, kindOnly(f.Resource), f.Object, from, until)
}

// realEvent is the real cluster's event a fault stands for: why a finding
// under it is one a production cluster can produce.
func realEvent(f plan.Fault) string {
	switch f.Kind {
	case plan.Crash:
		if f.Write > 0 {
			return "a pod OOM-killed, evicted or on a node that was lost between two API calls: kube-apiserver commits a write whether or not the client lives to read the response"
		}
		return "a pod killed in the middle of a reconcile (OOM, eviction, a node drain, a rolling update of the operator's Deployment)"
	case plan.Stale:
		if f.Resource != "" && f.Resource != "*" {
			return "a pod restarted onto a kube-apiserver whose watch cache of " + kindOnly(f.Resource) + " lagged behind etcd while its other watch caches were current (kube-apiserver keeps one watch cache per resource; client-go lists with resourceVersion 0, which the watch cache serves as it is)"
		}
		return "a pod restarted onto a kube-apiserver replica or watch cache that lags behind etcd: client-go lists with resourceVersion 0, which the watch cache serves as it is"
	case plan.Hold:
		return "an informer behind a slow or overloaded apiserver, or a pod partitioned from it: its watch delivers nothing, then the reflector catches up"
	case plan.Unobserved:
		return "an informer that misses some states of one object: its watch broke while the object changed, and the relist that followed was served by a watch cache behind them (client-go lists with resourceVersion 0), so the controller never sees the object's creation or its intermediate states and first sees it at a later change, as a watch that resumes delivers only the newest state"
	case plan.Lag:
		return "informer lag: every controller's cache sees a change some time after it was committed"
	case plan.API:
		return "an apiserver that refuses or fails requests: throttling (429), an etcd leader change or overload (500, 503), admission or quota (403, 422), a conflict (409), or a timeout after the write was applied"
	case plan.Latency:
		return "a slow or distant apiserver"
	case plan.Workers:
		return "MaxConcurrentReconciles set above 1, as many operators deploy"
	case plan.Stop:
		return "a graceful shutdown (a rolling update of the operator's Deployment, a node drain): the manager lets its in-flight reconciles finish and exits"
	case plan.NotReady:
		return "a pod whose readiness probe never passes"
	case plan.CrashLoop:
		return "a container in CrashLoopBackOff"
	case plan.PodFail:
		return "a container that exits with an error"
	case plan.NodeLost:
		return "a node that stops reporting (kubelet down, network partition): its pods are marked not ready, then evicted"
	}
	return "a fault of a real cluster"
}

// kindOnly is the Kind of a "group/version/Kind" name, with its group if it
// has one: "Pod", "Widget (example.com)".
func kindOnly(gvk string) string {
	parts := strings.Split(gvk, "/")
	if len(parts) != 3 {
		return gvk
	}
	if parts[0] == "" {
		return parts[2]
	}
	return parts[2] + " (" + parts[0] + ")"
}

// WhyReal is one line per fault of the plan: what it did in this run and the
// real event it stands for; one per fault of a System (systemFaults: the
// fault's step name to its system's), which the author's model of that
// system makes; and the workload's steps, which are a user's.
func WhyReal(p *plan.Plan, steps []trace.Step, systemFaults map[string]string) []string {
	var out []string
	for _, f := range p.Faults {
		at := manifest(f, steps)
		line := fmt.Sprintf("`%s`: %s. On a real cluster: %s.", f.String(), whatHappened(f, steps, at), realEvent(f))
		if scale := story.RealScale(f); scale != "" {
			line += " " + scale + "."
		}
		out = append(out, line)
	}
	workload := 0
	for _, s := range p.Steps {
		if sys, ok := systemFaults[s.Action]; ok {
			out = append(out, fmt.Sprintf("`%s`: a fault of the system %s outside the cluster (Options.Systems), as the test's model of it makes it.", s.String(), sys))
			continue
		}
		workload++
	}
	if workload > 0 {
		line := fmt.Sprintf("The workload's %d step%s (`at ...` lines): what a user or a GitOps tool does to the objects.", workload, world.Plural(workload))
		if scale := story.WorkloadScale(p); scale != "" {
			line += " " + scale + "."
		}
		out = append(out, line)
	}
	if len(p.Faults) == 0 && workload == len(p.Steps) {
		out = append(out, "No fault: the violation happens in a fault-free run, under the plan's schedule alone (a race the operator loses in some interleavings).")
	}
	return out
}

var namedObject = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]* [a-z0-9][a-z0-9.-]*(/[a-z0-9*][a-z0-9.*-]*)?`)

// pathHeading heads faultPath's steps for the violation v: "from the fault
// to the violation" (the fault is all that sets the two runs apart, so the
// way from it is the way to the difference, whichever run did what a
// correct operator does: package verdict's doc), and says why the steps
// may show no write of the difference: when every write v counts that one
// run made and the other did not is the fault-free run's
// (verdict.ExtraInOtherRunOnly), what that run did is told under what this
// run never did.
func pathHeading(v check.Verdict) (heading, why string) {
	if verdict.ExtraInOtherRunOnly(v.Detail) {
		return "from the fault to the violation", "the write that differs is the fault-free run's: what it did is under what this run never did"
	}
	return "from the fault to the violation", ""
}

// faultPath is the short story from the plan's first fault that showed to
// the violation: the operator's reconciles, calls, crashes and restarts after
// it, the workload's steps, and the built-in processes' steps on the objects
// the violation names, at most max steps.
func faultPath(p *plan.Plan, steps []trace.Step, v check.Verdict, operators []string, max int) []string {
	from := -1
	for _, f := range p.Faults {
		if at := manifest(f, steps); at >= 0 && (from < 0 || at < from) {
			from = at
		}
	}
	if from < 0 {
		return nil
	}
	named := map[string]bool{}
	for _, m := range namedObject.FindAllString(v.Detail, -1) {
		named[m] = true
		if _, name, ok := strings.Cut(m, " "); ok {
			named[name] = true
		}
	}
	var out []string
	more := 0
	for i := from; i < len(steps); i++ {
		s := steps[i]
		if v.At > 0 && s.At > v.At {
			break
		}
		keep := i == from ||
			(slices.Contains(operators, s.Process) && !(s.Op == "log" && s.Reconcile == 0)) ||
			(s.Process == "" && (s.Op == "action" || s.Op == "fault" || s.Op == "heal")) ||
			(builtin(s, operators) && named[s.Object])
		if !keep {
			continue
		}
		if len(out) == max {
			more++
			continue
		}
		out = append(out, s.String())
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%10s  ... %d more step%s (the whole timeline is in the inspector)", "", more, world.Plural(more)))
	}
	return out
}

// artifacts are the files a failure writes for its saved plan.
type artifacts struct {
	SVG, HTML, Markdown string
}

// tempArtifacts is the fresh temporary directory of this process's story
// files when neither the flag nor the environment names one.
var tempArtifacts struct {
	once sync.Once
	dir  string
	err  error
}

// artifactsDir is the directory story files go to: -ctrlsim.artifacts,
// $CTRLSIM_ARTIFACTS (the Makefile's ARTIFACTS: where tests keep
// artifacts), else a fresh temporary directory, made once per process.
func artifactsDir() (string, error) {
	if dir := cmp.Or(*FlagArtifacts, os.Getenv("CTRLSIM_ARTIFACTS")); dir != "" {
		return dir, nil
	}
	tempArtifacts.once.Do(func() { tempArtifacts.dir, tempArtifacts.err = os.MkdirTemp("", "ctrlsim-artifacts-") })
	return tempArtifacts.dir, tempArtifacts.err
}

// StoryFiles are the paths of the picture (.svg), the inspector (.html) and
// the markdown report (.md) a failure of a test of the package in pkgDir
// writes for its plan planPath, under the artifacts directory dir:
// dir/<the package's path in its module>/<the plan's name>.svg, and so on.
// `ctrlsim report` reads the report there.
func StoryFiles(dir, pkgDir, planPath string) (svg, html, md string) {
	base := filepath.Join(dir, packagePath(pkgDir), strings.TrimSuffix(filepath.Base(planPath), ".plan"))
	return base + ".svg", base + ".html", base + ".md"
}

// packagePath is pkgDir's path from its module's root (the directory of the
// nearest go.mod above it: examples/twowrites), the module directory's name
// for the root package, or pkgDir's name outside any module.
func packagePath(pkgDir string) string {
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		return filepath.Base(pkgDir)
	}
	for root := abs; ; root = filepath.Dir(root) {
		if Exists(filepath.Join(root, "go.mod")) {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != "." {
				return rel
			}
			return filepath.Base(root)
		}
		if filepath.Dir(root) == root {
			return filepath.Base(abs)
		}
	}
}

// storyPaths are the story files of a failure of this test binary's
// package (its working directory) for the plan at planPath, their
// directory made.
func storyPaths(planPath string) (artifacts, error) {
	dir, err := artifactsDir()
	if err != nil {
		return artifacts{}, fmt.Errorf("the artifacts directory: %w", err)
	}
	svg, html, md := StoryFiles(dir, ".", planPath)
	if err := os.MkdirAll(filepath.Dir(svg), 0o755); err != nil {
		return artifacts{}, err
	}
	return artifacts{SVG: svg, HTML: html, Markdown: md}, nil
}

// ArtifactPaths are the story, inspector and report paths beside a plan
// file (Replayed.WriteStory's: the catalogue's pages keep them there).
func ArtifactPaths(planPath string) artifacts {
	base := strings.TrimSuffix(planPath, ".plan")
	return artifacts{SVG: base + ".svg", HTML: base + ".html", Markdown: base + ".md"}
}

// Report is what a failure says, built once for the printed report and the
// files.
type Report struct {
	Test      string
	PlanPath  string
	P         *plan.Plan
	R         *world.RunResult
	Violated  []check.Verdict
	Operators []string
	// systemFaults are the step names of Options.Systems' faults, to their
	// system's name.
	systemFaults map[string]string
	// systems are Options.Systems' names: their steps (SystemEnv.Trace) are
	// the world's, shown in the timeline as the operator's are.
	systems []string
	// Names are the seed objects' names (SeedNames), by which the printed
	// plan names them (nil: by index).
	Names []string
	// Compared is the fault-free run of the plan's seed and workload
	// (ComparedRun), when a violation compares the run with it: the story
	// tells what it did and this run never did.
	Compared *story.Compared
	// Suspect is the fault-free run an interleavings-agree violation blames
	// (SuspectOf), when it is not this run: the story draws it.
	Suspect *Suspect
}

// PlanText is p as a failure prints and saves it: each step's object= a seed
// object's name (plan.NameObjects), not its index; a plan file read back
// resolves the names (plan.IndexObjects), so it runs as p does.
func PlanText(p *plan.Plan, names []string) string {
	return plan.NameObjects(p, names).String()
}

// SeedNames are the names of w's seed objects in index order, in the form a
// plan's object= takes (plan.ObjectName: "ConfigMap/team/app"). An object
// whose kind the scheme does not know, or whose name another seed object of
// a kind of the same name also has, keeps its index.
func SeedNames(w *world.World) []string {
	names := make([]string, len(w.Opts.Objects))
	count := map[string]int{}
	for i, o := range w.Opts.Objects {
		gvk, err := apiutil.GVKForObject(o, w.Opts.Scheme)
		if err != nil || gvk.Kind == "" || o.GetName() == "" {
			names[i] = strconv.Itoa(i)
			continue
		}
		names[i] = plan.ObjectName(gvk.Kind, o.GetNamespace(), o.GetName())
		count[names[i]]++
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = strconv.Itoa(i)
		}
	}
	return names
}

// shown are the processes whose every step a folded timeline keeps.
func (rep *Report) shown() []string { return append(slices.Clone(rep.Operators), rep.systems...) }

// Story is the run's story, its plan's steps naming seed objects as the
// printed plan does (object=Tenant/team-a, not object=0).
func (rep *Report) Story() *story.Story {
	if s := rep.Suspect; s != nil && rep.drawsSuspect() {
		// The run interleavings-agree blames, with the verdicts that
		// blame it.
		return story.Build(story.Input{
			Title:    rep.Test + " (the suspect: " + s.Name + ")",
			Steps:    s.R.Steps,
			Log:      s.R.Log,
			Start:    s.R.Start,
			Plan:     plan.NameObjects(s.P, rep.Names),
			Verdicts: s.Verdicts,
			Lead:     rep.Operators,
		})
	}
	p := rep.P
	if p != nil && rep.Names != nil {
		p = plan.NameObjects(p, rep.Names)
	}
	return story.Build(story.Input{
		Title:    rep.Test,
		Steps:    rep.R.Steps,
		Log:      rep.R.Log,
		Start:    rep.R.Start,
		Plan:     p,
		Verdicts: rep.R.Verdicts,
		Lead:     rep.Operators,
		Compared: rep.Compared,
	})
}

// ComparedRun is the fault-free run of p's seed and workload, run again for
// its trace when a violation of vs compares this run with it (its detail
// names "the fault-free run of the same workload": converges,
// update-summaries), so that the story can say what that run did and this
// one never did; nil when none does, p has no fault (it is that run), or
// the run is cut at the work bound or cannot run.
func ComparedRun(w *world.World, t *testing.T, p *plan.Plan, vs []check.Verdict) *story.Compared {
	if len(p.Faults) == 0 || !slices.ContainsFunc(vs, func(v check.Verdict) bool { return strings.Contains(v.Detail, comparedName) }) {
		return nil
	}
	defer uncounted(w)()
	_, r, err := reference.RunOnce(w, t, &plan.Plan{Seed: p.Seed, Steps: p.Steps}, nil, 0)
	if err != nil || world.CutNote(r.Verdicts) != "" {
		return nil
	}
	return &story.Compared{Name: comparedName, Steps: r.Steps}
}

// uncounted keeps the runs a report makes out of the world's count of runs
// (World.Runs: an exploration's statistics count the runs it made to find
// and shrink, not those of telling the story); call the function it returns
// when done.
func uncounted(w *world.World) func() {
	n := w.Runs
	return func() { w.Runs = n }
}

// comparedName is how the verdicts name the fault-free run of a plan's seed
// and workload.
const comparedName = "the fault-free run of the same workload"

// logLines are the lines logged by the processes keep accepts.
func (rep *Report) logLines(keep func(process string) bool) []story.LogLine {
	var out []story.LogLine
	for _, s := range rep.R.Steps {
		if s.Op == "log" && keep(s.Process) {
			out = append(out, story.LogLine{At: int64(s.At), Process: s.Process, Controller: s.Controller, Text: s.Result})
		}
	}
	return out
}

// operatorLogs are the lines the operator's processes logged.
func (rep *Report) operatorLogs() []story.LogLine {
	return rep.logLines(func(p string) bool { return slices.Contains(rep.Operators, p) })
}

// AllLogs are every process's log lines, for the inspector.
func (rep *Report) AllLogs() []story.LogLine { return rep.logLines(func(string) bool { return true }) }

// write writes the picture, the inspector and the markdown report in the
// artifacts directory (storyPaths).
func (rep *Report) write() (artifacts, error) {
	a, err := storyPaths(rep.PlanPath)
	if err != nil {
		return a, err
	}
	st := rep.Story()
	if err := WriteFile(a.SVG, func(f *os.File) error { return st.WriteSVG(f) }); err != nil {
		return a, err
	}
	if err := WriteFile(a.HTML, func(f *os.File) error { return st.WriteHTML(f, rep.AllLogs()) }); err != nil {
		return a, err
	}
	md := rep.markdown(filepath.Base(a.SVG), filepath.Base(a.HTML))
	return a, os.WriteFile(a.Markdown, []byte(md), 0o644)
}

func WriteFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// markdown is the report for upstream: the violation, why it is real, the
// steps from the fault to it, the minimal plan and its replay command, the
// story, and the operator's own log lines. It names no path of this machine
// and no wall-clock time: the same run gives the same bytes.
func (rep *Report) markdown(svg, html string) string {
	var b strings.Builder
	props := make([]string, 0, len(rep.Violated))
	for _, v := range rep.Violated {
		props = append(props, v.Property)
	}
	fmt.Fprintf(&b, "# %s: %s violated\n\n", rep.Test, strings.Join(props, ", "))
	fmt.Fprintf(&b, "Found by ctrlsim's operatortest: the operator's own controllers ran in a simulated cluster under the plan below, and the run broke %s.\n\n", map[bool]string{true: "this property", false: "these properties"}[len(props) == 1])
	b.WriteString("## The violation\n\n")
	for _, v := range rep.Violated {
		fmt.Fprintf(&b, "- **%s** (judged at %v of virtual time): %s\n", v.Property, v.At, strings.ReplaceAll(v.Detail, "\n", "\n  "))
	}
	b.WriteString("\n## Why a real cluster can do this\n\n")
	for _, l := range WhyReal(rep.P, rep.R.Steps, rep.systemFaults) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	if len(rep.Violated) > 0 {
		if path := faultPath(rep.P, rep.R.Steps, rep.Violated[0], rep.Operators, 25); len(path) > 0 {
			h, why := pathHeading(rep.Violated[0])
			fmt.Fprintf(&b, "\n## %s\n\n", strings.ToUpper(h[:1])+h[1:])
			if why != "" {
				fmt.Fprintf(&b, "%s.\n\n", strings.ToUpper(why[:1])+why[1:])
			}
			b.WriteString("```\n")
			for _, l := range path {
				b.WriteString(l + "\n")
			}
			b.WriteString("```\n")
		}
	}
	if s := rep.Suspect; s != nil {
		drawn := "The story below draws the run interleavings-agree blames"
		if !rep.drawsSuspect() {
			drawn = "The story below is this run's, for its other violations; interleavings-agree blames"
		}
		// Beside the minimal plan, by the path the markdown gives it below.
		saved := rep.PlanPath
		if filepath.IsAbs(saved) {
			saved = filepath.Base(saved)
		}
		saved = strings.TrimSuffix(saved, ".plan") + ".suspect.plan"
		fmt.Fprintf(&b, "\n## The suspect\n\n%s, %s (trace hash `%s`): the minimal plan's workload under its seed, with no fault. Save its plan as `%s` in the test's package directory and replay it:\n\n```\n%s```\n\n```sh\n%s\n```\n",
			drawn, s.Name, s.R.Hash, saved, PlanText(s.P, rep.Names), ReplayCommand(rep.Test, saved))
		if sv := s.Violated(); len(sv) > 0 {
			fmt.Fprintf(&b, "\nIts own verdicts, besides interleavings-agree:\n\n```\n%s```\n", verdictLines(sv))
		}
	}
	if abs := rep.Story().Absences; len(abs) > 0 {
		b.WriteString("\n## What this run never did\n\n")
		for _, a := range abs {
			fmt.Fprintf(&b, "- %s\n", a.Text)
		}
	}
	b.WriteString("\n## The minimal plan\n\n```\n")
	b.WriteString(PlanText(rep.P, rep.Names))
	b.WriteString("```\n\n")
	// The path the failure printed (testdata/ctrlsim/...), so that the
	// replay line is the one the test printed; a plan replayed from
	// elsewhere (an absolute path) is saved beside the test by its name.
	name := rep.PlanPath
	if filepath.IsAbs(name) {
		name = filepath.Base(name)
	}
	fmt.Fprintf(&b, "Save it as `%s` in the test's package directory and replay it bit for bit, from anywhere in the module:\n\n```sh\n%s\n```\n\n", name, ReplayCommand(rep.Test, name))
	fmt.Fprintf(&b, "The run's trace hash is `%s`: a replay gives the same.\n\n", rep.R.Hash)
	b.WriteString("## The story\n\n")
	fmt.Fprintf(&b, "![the run, lane by lane: the operator's first](%s)\n\n", svg)
	fmt.Fprintf(&b, "The run inspector, a self-contained page with every step clickable: [%s](%s).\n\n", html, html)
	b.WriteString("## The operator's log lines\n\n")
	logs := rep.operatorLogs()
	if len(logs) == 0 {
		b.WriteString("(none)\n")
	} else {
		b.WriteString("```\n")
		for _, l := range logs {
			who := l.Process
			if l.Controller != "" {
				who += "/" + l.Controller
			}
			fmt.Fprintf(&b, "%10s  %s: %s\n", time.Duration(l.At), who, l.Text)
		}
		b.WriteString("```\n")
	}
	b.WriteString("\n## The timeline\n\n```\n")
	for _, l := range FoldTimeline(rep.R.Steps, rep.shown(), false) {
		b.WriteString(l + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func FileName(test string) string { return unsafeName.ReplaceAllString(test, "_") }

// Failure is what a violating plan's report says and where its story went.
type Failure struct {
	Text  string
	Files artifacts
	// Suspect is the fault-free run an interleavings-agree violation
	// blames, when it is not the failing run (nil otherwise).
	Suspect *Suspect
}

// failure runs p and, when it violates something, writes its story beside
// path and returns the report; nil when p held.
func OfPlan(w *world.World, t *testing.T, p *plan.Plan, path string) (*Failure, error) {
	r, err := reference.Run(w, t, p)
	if err != nil {
		return nil, err
	}
	if len(r.Violated()) == 0 {
		return nil, nil
	}
	return Of(w, t, p, path, r), nil
}

// failureOf is the report of r, a violating run of p (saved at path), its
// story written beside path.
func Of(w *world.World, t *testing.T, p *plan.Plan, path string, r *world.RunResult) *Failure {
	vs := r.Violated()
	var err error
	rep := &Report{Test: t.Name(), PlanPath: path, P: p, R: r, Violated: vs, Operators: w.OperatorProcesses(), systemFaults: world.SystemFaultNames(w.Opts.Systems), systems: world.SystemNames(w.Opts.Systems),
		Names: SeedNames(w), Compared: ComparedRun(w, t, p, vs), Suspect: SuspectOf(w, t, p, vs)}
	var b strings.Builder
	fmt.Fprintf(&b, "operatortest: plan %s violates %s:\n", path, strings.Join(propertyNames(vs), ", "))
	b.WriteString(verdictLines(vs))
	if sv := rep.Suspect.Violated(); len(sv) > 0 {
		fmt.Fprintf(&b, "and in the run interleavings-agree blames (the suspect, %s; its plan is below), its own verdicts:\n", rep.Suspect.Name)
		b.WriteString(verdictLines(sv))
	}
	b.WriteString("\nwhy a real cluster can do this:\n")
	for _, l := range WhyReal(p, r.Steps, rep.systemFaults) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if steps := faultPath(p, r.Steps, vs[0], rep.Operators, 12); len(steps) > 0 {
		h, why := pathHeading(vs[0])
		if why != "" {
			h += " (" + why + ")"
		}
		fmt.Fprintf(&b, "\n%s:\n", h)
		for _, l := range steps {
			b.WriteString(l + "\n")
		}
	}
	st := rep.Story()
	if lines := st.StepLines(); len(lines) > 0 {
		if rep.Suspect != nil && rep.drawsSuspect() {
			fmt.Fprintf(&b, "\nthe violation, step by step, in the suspect's run (%s; numbered as the picture numbers them):\n", rep.Suspect.Name)
		} else {
			b.WriteString("\nthe violation, step by step (numbered as the picture numbers them):\n")
		}
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	if len(st.Absences) > 0 {
		b.WriteString("\nwhat this run never did:\n")
		for _, a := range st.Absences {
			b.WriteString("  " + a.Text + "\n")
		}
	}
	fmt.Fprintf(&b, "\nthe plan:\n%s\n", indent(PlanText(p, rep.Names)))
	fmt.Fprintf(&b, "replay: %s\n", ReplayCommand(t.Name(), path))
	f := &Failure{Suspect: rep.Suspect}
	if f.Files, err = rep.write(); err != nil { // failure.go: the artifacts directory
		fmt.Fprintf(&b, "(the story could not be written: %v)\n", err)
	} else {
		fmt.Fprintf(&b, "the story: %s (picture), %s (inspector), %s (a report for an issue; also: ctrlsim report %s)\n",
			f.Files.SVG, f.Files.HTML, f.Files.Markdown, path)
		fmt.Fprintf(&b, "(the story is in the artifacts directory %s: -ctrlsim.artifacts or CTRLSIM_ARTIFACTS choose it; commit the plan %s, not the story)\n",
			filepath.Dir(f.Files.SVG), path)
		if rep.Suspect != nil {
			if text, err := rep.writeSuspect(suspectPath(f.Files)); err != nil {
				fmt.Fprintf(&b, "(the suspect's plan could not be written: %v)\n", err)
			} else {
				b.WriteString(text)
			}
		}
	}
	fmt.Fprintf(&b, "\ntimeline (trace hash %s; log lines and Events included; the operator's processes: %s):\n", r.Hash, strings.Join(rep.Operators, ", "))
	for _, l := range FoldTimeline(r.Steps, rep.shown(), FullTimeline()) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	f.Text = b.String()
	return f
}

// ReplayCommand is the go test command that replays a plan file of a test
// of this test binary's package (its working directory). It names the
// package by its import path, so that it runs anywhere in its module: at the
// module's root, where `go test ./...` runs, and in the package's directory
// alike. path is as the test binary reads it: go test runs the binary in the
// package's directory, wherever the command is typed, so a path relative to
// that directory (testdata/ctrlsim/...) is right from both. Outside a module
// the command names no package (it runs in the package's directory).
func ReplayCommand(test, path string) string {
	pkg := ""
	if ip := ImportPath("."); ip != "" {
		pkg = ip + " "
	}
	return fmt.Sprintf("go test %s-run '%s' -ctrlsim.plan=%s -v", pkg, RunPattern(test), path)
}

// ImportPath is the import path of the package in pkgDir: its module's path
// (the module line of the nearest go.mod above it) and its path from the
// module's root; "" outside a module.
func ImportPath(pkgDir string) string {
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		return ""
	}
	for root := abs; ; root = filepath.Dir(root) {
		if gomod, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			module := modulePath(gomod)
			rel, err := filepath.Rel(root, abs)
			if module == "" || err != nil {
				return ""
			}
			if rel == "." {
				return module
			}
			return module + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return ""
		}
	}
}

// modulePath is the path a go.mod's module line declares ("" if none).
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != strings.TrimLeft(rest, " \t") {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// RunPattern is the -run pattern that selects exactly the test named test
// (a subtest's name is matched level by level).
func RunPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// PlanHeader is the comment a saved plan starts with: the test it belongs to
// (ctrlsim report reads it) and how to replay it.
func PlanHeader(test, path string) string {
	return fmt.Sprintf("# operatortest test: %s\n# replay: %s\n", test, ReplayCommand(test, path))
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// verdictLines lists vs, one line each; the same violation again at the
// same place (a reconcile that panics at every retry) is one more line that
// says how often.
func verdictLines(vs []check.Verdict) string {
	var b strings.Builder
	for i := 0; i < len(vs); {
		v := vs[i]
		fmt.Fprintf(&b, "  %s at %v: %s\n", v.Property, v.At, v.Detail)
		j := i + 1
		for j < len(vs) && vs[j].Property == v.Property && vs[j].Where == v.Where && v.Where != "" {
			j++
		}
		if j > i+1 {
			fmt.Fprintf(&b, "  %s: %d more times at the same place, the last at %v\n", v.Property, j-i-1, vs[j-1].At)
		}
		i = j
	}
	return b.String()
}

// propertyNames are the properties vs violate, each once.
func propertyNames(vs []check.Verdict) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Property) {
			out = append(out, v.Property)
		}
	}
	return out
}

func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
