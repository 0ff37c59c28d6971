package bench

import (
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/google/pprof/profile"
)

// Profile is where the CPU time of one exploration went (the profile that
// says why a speed target is missed): the CPU seconds sampled,
// split by the phase operatortest labelled each run with (find, shrink, ...:
// world.LabelPhase) and, within each phase, by the part of the
// simulation the code was doing (Parts).
type Profile struct {
	Exploration string  `json:"exploration"`
	Seconds     float64 `json:"cpu_seconds"`
	Phases      []Phase `json:"phases"`
}

// Phase is one phase's samples by part, largest first.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"cpu_seconds"`
	Parts   []Share `json:"parts"`
}

// Share is one part's CPU seconds.
type Share struct {
	Part    string  `json:"part"`
	Seconds float64 `json:"cpu_seconds"`
}

// Parts of a simulated run, each known by the code a sample's stack is in:
// the first of a stack's frames, from the innermost out, that belongs to a
// part names it (the runtime's own frames, allocation and copying, belong to
// none and count for the code that called them). Two parts are the Go
// runtime's: the collector's background work (marking, sweeping,
// scavenging), which runs beside every part, and the switches between
// goroutines (a stack rooted in runtime.mcall: a goroutine parking while
// another is handed the turn), which count for the scheduler.
var parts = []struct {
	name     string
	prefixes []string
}{
	{"API server: field manager (managed fields, typed conversion)", []string{
		"k8s.io/apimachinery/pkg/util/managedfields", "sigs.k8s.io/structured-merge-diff", "k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"}},
	{"API server: storage, admission, validation, watch log", []string{
		"github.com/ctrlsim/ctrlsim/sim/apiserver", "github.com/ctrlsim/ctrlsim/sim/restapi", "github.com/ctrlsim/ctrlsim/sim/rbac",
		"github.com/ctrlsim/ctrlsim/sim/patch", "k8s.io/apiserver", "k8s.io/apiextensions-apiserver"}},
	{"clients: requests, conversion, copies", []string{
		"github.com/ctrlsim/ctrlsim/sim/kubeclient", "sigs.k8s.io/controller-runtime/pkg/client", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"}},
	{"watches and caches (informers)", []string{
		"github.com/ctrlsim/ctrlsim/sim/informer", "k8s.io/client-go/tools/cache", "sigs.k8s.io/controller-runtime/pkg/cache"}},
	{"trace: steps, hash, log lines", []string{"github.com/ctrlsim/ctrlsim/sim/trace"}},
	{"judging: oracles, properties, snapshots", []string{
		"github.com/ctrlsim/ctrlsim/sim/check", "github.com/ctrlsim/ctrlsim/operatortest.(*world).snapshotOf", "github.com/ctrlsim/ctrlsim/operatortest.judgedBy",
		"github.com/ctrlsim/ctrlsim/operatortest.userProperty", "github.com/ctrlsim/ctrlsim/operatortest.(*canon)", "github.com/ctrlsim/ctrlsim/sim/cluster.(*Cluster).Judge"}},
	{"built-in controllers (kube-controller-manager and kubelet models)", []string{"github.com/ctrlsim/ctrlsim/models/kube"}},
	{"start-up: managers, controllers, sources, informers", []string{
		"github.com/ctrlsim/ctrlsim/sim/process.(*Process).start", "sigs.k8s.io/controller-runtime/pkg/builder", "sigs.k8s.io/controller-runtime/pkg/manager",
		"sigs.k8s.io/controller-runtime/pkg/internal/source", "sigs.k8s.io/controller-runtime/pkg/controller."}},
	{"reconciles: controller-runtime's handler and the operator's code", []string{
		"sigs.k8s.io/controller-runtime/pkg/internal/controller", "github.com/ctrlsim/ctrlsim/sim/process.(*hosted)"}},
	{"world set-up: cluster, processes, seed objects, workload", []string{
		"github.com/ctrlsim/ctrlsim/sim/cluster.New", "github.com/ctrlsim/ctrlsim/operatortest.(*world).options", "github.com/ctrlsim/ctrlsim/operatortest.(*world).setup",
		"github.com/ctrlsim/ctrlsim/operatortest.newWorld"}},
	{PartScheduler, []string{"github.com/ctrlsim/ctrlsim/sim/scheduler", "github.com/ctrlsim/ctrlsim/sim/clock", "github.com/ctrlsim/ctrlsim/wallclock", "testing/synctest"}},
	{"explorer and shrinker (rapid, plans)", []string{"pgregory.net/rapid", "github.com/ctrlsim/ctrlsim/sim/explore", "github.com/ctrlsim/ctrlsim/sim/plan"}},
}

// PartGC is the collector's background work; PartScheduler the
// scheduler's, the clock's and the goroutine switches; PartOther what no
// part names.
const (
	PartGC        = "garbage collector (background marking, sweeping)"
	PartScheduler = "scheduler: task switches, clock, bubble"
	PartOther     = "other"
)

// partOf is the part a stack (innermost frame first) belongs to.
func partOf(frames []string) string {
	for _, f := range frames {
		if strings.HasPrefix(f, "runtime.gcBgMarkWorker") || f == "runtime.bgsweep" || f == "runtime.bgscavenge" {
			return PartGC
		}
	}
	if n := len(frames); n > 0 && frames[n-1] == "runtime.mcall" {
		return PartScheduler
	}
	for _, f := range frames {
		for _, p := range parts {
			for _, pre := range p.prefixes {
				if strings.HasPrefix(f, pre) {
					return p.name
				}
			}
		}
	}
	return PartOther
}

// Breakdown reads a CPU profile (runtime/pprof's) of an exploration. A
// sample with no phase label ran outside every run (the exploration's own
// work between runs, or the collector's marking, which carries no labels) and
// is counted in the phase "between runs".
func Breakdown(name string, r io.Reader) (*Profile, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, err
	}
	cpu := slices.IndexFunc(p.SampleType, func(s *profile.ValueType) bool { return s.Type == "cpu" })
	if cpu < 0 {
		cpu = len(p.SampleType) - 1
	}
	byPhase := map[string]map[string]float64{}
	out := &Profile{Exploration: name}
	for _, s := range p.Sample {
		secs := float64(s.Value[cpu]) / 1e9
		var frames []string
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil {
					frames = append(frames, l.Function.Name)
				}
			}
		}
		phase := "between runs"
		if v := s.Label[world.LabelPhase]; len(v) > 0 {
			phase = v[0]
		}
		if byPhase[phase] == nil {
			byPhase[phase] = map[string]float64{}
		}
		byPhase[phase][partOf(frames)] += secs
		out.Seconds += secs
	}
	for name, ps := range byPhase {
		ph := Phase{Name: name}
		for part, secs := range ps {
			ph.Parts = append(ph.Parts, Share{Part: part, Seconds: secs})
			ph.Seconds += secs
		}
		slices.SortFunc(ph.Parts, func(a, b Share) int {
			return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), strings.Compare(a.Part, b.Part))
		})
		out.Phases = append(out.Phases, ph)
	}
	slices.SortFunc(out.Phases, func(a, b Phase) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

// PartNames are the parts in the order a report lists them.
func PartNames() []string {
	out := make([]string, 0, len(parts)+2)
	for _, p := range parts {
		out = append(out, p.name)
	}
	return append(out, PartGC, PartOther)
}
