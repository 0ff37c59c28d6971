// Package bench measures ctrlsim: the apiserver model's throughput against
// controller-runtime's fake client in the same run, reconciles per second,
// virtual seconds per wall second under long backoffs, the checks and time
// it takes to catch each buggy variant of the catalogue, and operatortest's
// own cost (operatortest.go): plans per second on one core and on every core
// (worker processes), the time to the first failing plan and to the
// minimal plan of example bugs (twowrites, patterns, the CronJob example),
// median over 5 seeds, with what the shrink cost (its candidates and runs),
// and a same-run ratio against envtest on one operator and workload
// (envtest_operator_test.go), each beside its speed target, and where the
// CPU time of two of those explorations went (profile.go: a CPU profile
// broken down by operatortest's phase labels and by part of the simulation).
// What the world's fidelity costs against the world before it is measured by
// package worldcost and carried in Figures.WorldCost.
//
// # Known gaps
//
//   - Figures are wall-clock measurements on a shared machine: each is the median
//     of several rounds, and ratios are taken between peers measured in the same
//     run, but absolute numbers move with the machine's load.
//   - The operatortest figures run `go test ./internal/bench` from the
//     current directory (the module's root: make bench): without the go
//     command they are reported as not measured. They are wall time with
//     every core, so they move with the machine's load more than the others.
//   - The same-run ratio against envtest on operatortest's own workload is
//     one operator (twowrites) to one state: envtest has no faults to
//     inject, so it times the fault-free run only.
//   - A profile's parts are named by the packages and functions on a
//     sample's stack (profile.go's parts): code the operator under test
//     calls that belongs to no part counts for its caller (a reconcile), and
//     a part whose code moves to another package counts as "other" until
//     the list follows it. The collector's background work is not split by
//     phase.
//   - speedup_vs_envtest needs the envtest assets (make envtest-assets) and is
//     reported as absent without them. Its workload and how it is timed are
//     internal/promobench's.
package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/worldcost"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// Catch is how fast the explorer catches one buggy variant.
type Catch struct {
	Entry                   string  `json:"entry"`
	Variant                 string  `json:"variant"`
	MedianChecks            float64 `json:"median_checks"`
	MedianSeconds           float64 `json:"median_seconds"` // to the first violating plan
	MedianSecondsWithShrink float64 `json:"median_seconds_with_shrinking"`
	Seeds                   int     `json:"seeds"`
	CaughtFromAll           bool    `json:"caught_from_all_seeds"`
}

// EnvtestComparison is one scripted workload timed on envtest and on the
// simulator in the same run.
type EnvtestComparison struct {
	Name             string  `json:"name"`   // "catalogue" or "no-wait"
	Timing           string  `json:"timing"` // the promotion system's timing
	EnvtestSeconds   float64 `json:"envtest_seconds"`
	EnvtestRounds    int     `json:"envtest_rounds"`
	SimulatorSeconds float64 `json:"simulator_seconds"`
	SimulatorRounds  int     `json:"simulator_rounds"`
	Speedup          float64 `json:"speedup"`
}

// Figures are the measurements of one bench run; the JSON names are the contract.
type Figures struct {
	APIOpsPerSec        float64  `json:"api_ops_per_sec"`
	FakeClientOpsPerSec float64  `json:"fake_client_ops_per_sec"`
	SpeedupVsFakeClient float64  `json:"speedup_vs_fake_client"`
	ReconcilesPerSec    float64  `json:"reconciles_per_sec"`
	VirtualPerWall      float64  `json:"virtual_per_wall"`
	SpeedupVsEnvtest    *float64 `json:"speedup_vs_envtest,omitempty"`
	// SpeedupVsEnvtestNoWait is the same workload with a promotion system that
	// takes no time: what is left is API and controller work.
	SpeedupVsEnvtestNoWait *float64            `json:"speedup_vs_envtest_no_wait,omitempty"`
	Envtest                []EnvtestComparison `json:"envtest,omitempty"`
	EnvtestNote            string              `json:"envtest_note,omitempty"`
	Catches                []Catch             `json:"catches"`
	MedianSecondsToCatch   float64             `json:"median_seconds_to_catch"`
	GOMAXPROCS             int                 `json:"gomaxprocs"`
	// Machine names the machine: its CPU model, CPUs and load when the
	// bench started (set by the caller).
	Machine string `json:"machine,omitempty"`
	// Operatortest is operatortest's own cost (operatortest.go), measured
	// in a test binary with every core; OperatortestNote says why not.
	Operatortest     *Operatortest `json:"operatortest,omitempty"`
	OperatortestNote string        `json:"operatortest_note,omitempty"`
	// OperatortestAlone is the day (and the machine, its load at the start)
	// the operatortest figures were measured on their own (ctrlsim bench
	// --only-operatortest) and merged into a report; "" when they were
	// measured with the rest.
	OperatortestAlone string `json:"operatortest_alone,omitempty"`
	// WorldCost is what the world's fidelity costs against the world before
	// it (cmd/ctrlsim/internal/worldcost, measured by the caller); nil
	// when it was skipped.
	WorldCost *worldcost.Figures `json:"world_cost,omitempty"`
}

// median is worldcost's Median: one rule for every median of the bench.
var median = worldcost.Median

// rate runs op for about d and returns operations per second. It collects
// garbage first, so that one peer's garbage is not charged to the other.
func rate(d time.Duration, op func(i int) error) (float64, error) {
	runtime.GC()
	start := time.Now()
	n := 0
	for ; ; n++ {
		if err := op(n); err != nil {
			return 0, err
		}
		if n%32 == 31 && time.Since(start) > d {
			break
		}
	}
	return float64(n+1) / time.Since(start).Seconds(), nil
}

// getUpdatePair is the workload of api_ops_per_sec: Get then Update of one small
// custom resource (Widget) through a client.Client.
func getUpdatePair(c client.Client) func(i int) error {
	ctx := context.Background()
	w := &apiservertest.Widget{}
	key := client.ObjectKey{Namespace: "bench", Name: "w"}
	return func(i int) error {
		if err := c.Get(ctx, key, w); err != nil {
			return err
		}
		w.Spec.Size = i + 1
		return c.Update(ctx, w)
	}
}

// APIThroughput measures Get+Update pairs per second on the model and on the
// fake client, interleaved in rounds, and returns the medians.
func APIThroughput(rounds int, perRound time.Duration) (model, fakeRate float64, err error) {
	scheme := apiservertest.Scheme()
	w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "w"}}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	m := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})
	if err := m.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}); err != nil {
		return 0, 0, err
	}
	if err := m.Create(context.Background(), w.DeepCopy()); err != nil {
		return 0, 0, err
	}
	f := fake.NewClientBuilder().WithScheme(scheme).WithObjects(w.DeepCopy()).WithStatusSubresource(&apiservertest.Widget{}).Build()
	var ms, fs []float64
	for range rounds {
		r, err := rate(perRound, getUpdatePair(m))
		if err != nil {
			return 0, 0, err
		}
		ms = append(ms, r)
		r, err = rate(perRound, getUpdatePair(f))
		if err != nil {
			return 0, 0, err
		}
		fs = append(fs, r)
	}
	return median(ms), median(fs), nil
}

func configMaps(n int, r reconcile.Func) (*cluster.Cluster, error) {
	return cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
				WithOptions(controller.Options{UsePriorityQueue: ptr.To(false)}).Complete(r)
		}}},
		Setup: func(c *cluster.Cluster) error {
			for i := range n {
				if err := c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%03d", i)}}); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// Reconciles measures reconciles per wall second of a trivial reconciler
// (requeue after 1s, no API calls) over 100 objects.
func Reconciles(rounds int, perRound time.Duration) (float64, error) {
	var rs []float64
	for range rounds {
		count := 0
		c, err := configMaps(100, func(context.Context, reconcile.Request) (reconcile.Result, error) {
			count++
			return reconcile.Result{RequeueAfter: time.Second}, nil
		})
		if err != nil {
			return 0, err
		}
		c.Trace.Keep = false
		c.RunFor(time.Second)
		count = 0
		start := time.Now()
		for time.Since(start) < perRound {
			c.RunFor(10 * time.Second)
		}
		rs = append(rs, float64(count)/time.Since(start).Seconds())
		c.Close()
	}
	return median(rs), nil
}

// VirtualPerWall measures virtual seconds simulated per wall second when ten
// objects fail every reconcile (exponential backoff up to 1000s).
func VirtualPerWall(rounds int, perRound time.Duration) (float64, error) {
	var rs []float64
	for range rounds {
		c, err := configMaps(10, func(context.Context, reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, errors.New("persistent failure")
		})
		if err != nil {
			return 0, err
		}
		c.Trace.Keep = false
		start := time.Now()
		var virtual time.Duration
		for time.Since(start) < perRound {
			c.RunFor(24 * time.Hour)
			virtual += 24 * time.Hour
		}
		rs = append(rs, virtual.Seconds()/time.Since(start).Seconds())
		c.Close()
	}
	return median(rs), nil
}

// CatchTimes explores every buggy variant expected to be caught from seeds 1..n
// and reports the median checks and wall seconds to catch it, and to catch and
// shrink it.
func CatchTimes(entries []*catalogue.Entry, seeds, checks int, progress func(string)) []Catch {
	var out []Catch
	for _, e := range entries {
		if e.Expect[variant.Buggy] != catalogue.Caught {
			continue
		}
		if progress != nil {
			progress(e.ID)
		}
		c := Catch{Entry: e.ID, Variant: string(variant.Buggy), Seeds: seeds, CaughtFromAll: true}
		var ks, ss, ws []float64
		for seed := 1; seed <= seeds; seed++ {
			r := e.Explore(variant.Buggy, checks, uint64(seed), time.Now)
			if r.Outcome != catalogue.Caught {
				c.CaughtFromAll = false
				continue
			}
			ks = append(ks, float64(r.ChecksToFirstFailure))
			ss = append(ss, r.WallToCatch.Seconds())
			ws = append(ws, r.Wall.Seconds())
		}
		c.MedianChecks, c.MedianSeconds, c.MedianSecondsWithShrink = median(ks), median(ss), median(ws)
		out = append(out, c)
	}
	return out
}

// Run measures everything on one core (GOMAXPROCS=1).
// envtest, when not nil, times the workloads on envtest and on the simulator; it
// returns a note instead when it cannot.
func Run(entries []*catalogue.Entry, envtest func(progress func(string)) ([]EnvtestComparison, string), progress func(string)) (*Figures, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f := &Figures{GOMAXPROCS: 1}
	var err error
	progress("api throughput (model and fake client)")
	if f.APIOpsPerSec, f.FakeClientOpsPerSec, err = APIThroughput(5, 200*time.Millisecond); err != nil {
		return nil, err
	}
	f.SpeedupVsFakeClient = f.APIOpsPerSec / f.FakeClientOpsPerSec
	progress("reconciles per second")
	if f.ReconcilesPerSec, err = Reconciles(5, 200*time.Millisecond); err != nil {
		return nil, err
	}
	progress("virtual seconds per wall second")
	if f.VirtualPerWall, err = VirtualPerWall(5, 200*time.Millisecond); err != nil {
		return nil, err
	}
	if envtest != nil {
		f.Envtest, f.EnvtestNote = envtest(progress)
		for _, c := range f.Envtest {
			switch c.Name {
			case "catalogue":
				f.SpeedupVsEnvtest = &c.Speedup
			case "no-wait":
				f.SpeedupVsEnvtestNoWait = &c.Speedup
			}
		}
	}
	f.Catches = CatchTimes(entries, 5, 1000, func(id string) { progress("time to catch " + id) })
	var secs []float64
	for _, c := range f.Catches {
		secs = append(secs, c.MedianSeconds)
	}
	f.MedianSecondsToCatch = median(secs)
	return f, nil
}
