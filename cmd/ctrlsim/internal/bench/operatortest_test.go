package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/bigrecreate"
	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/examples/patterns/conditions"
	"github.com/ctrlsim/ctrlsim/examples/patterns/ownedchildren"
	"github.com/ctrlsim/ctrlsim/examples/staleview"
	"github.com/ctrlsim/ctrlsim/examples/twowrites"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// benchOperator is an example operator as its own test gives it to
// operatortest (examples/twowrites, examples/patterns), correct or buggy.
type benchOperator struct {
	name    string
	plans   int     // the budget of the throughput figure
	goal    float64 // plans a second on every core (Throughput.Goal)
	options func(buggy bool) operatortest.Options
	// bugPlans is the budget of each seed's search for the buggy twin's
	// bug (0: 1000).
	bugPlans int
}

var patternsScheme = func() *kruntime.Scheme {
	s := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, conditions.AddToScheme, ownedchildren.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

var staleviewScheme = func() *kruntime.Scheme {
	s := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, staleview.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

var benchOperators = []benchOperator{
	{name: "twowrites", plans: 300, goal: 500, options: func(buggy bool) operatortest.Options {
		return operatortest.Options{
			Scheme: clientgoscheme.Scheme,
			Managers: []operatortest.Manager{{Name: "twowrites", Setup: func(mgr manager.Manager) error {
				return (&twowrites.Reconciler{Client: mgr.GetClient(), Fixed: !buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
				Labels: map[string]string{twowrites.AppLabel: "yes"}}}},
		}
	}},
	{name: "patterns/conditions", plans: 100, goal: 500, options: func(buggy bool) operatortest.Options {
		return operatortest.Options{
			Scheme: patternsScheme, CRDs: [][]byte{conditions.CRD},
			Managers: []operatortest.Manager{{Name: "conditions", Setup: func(mgr manager.Manager) error {
				return (&conditions.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&conditions.Page{ObjectMeta: metav1.ObjectMeta{Namespace: "site", Name: "home"}, Spec: conditions.PageSpec{Body: "<h1>Welcome</h1>"}}},
		}
	}},
	{name: "patterns/owned-children", options: func(buggy bool) operatortest.Options {
		return operatortest.Options{
			Scheme: patternsScheme, CRDs: [][]byte{ownedchildren.CRD},
			Managers: []operatortest.Manager{{Name: "ownedchildren", Setup: func(mgr manager.Manager) error {
				return (&ownedchildren.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&ownedchildren.Website{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "shop"}, Spec: ownedchildren.WebsiteSpec{Title: "Shop", Port: 8080}}},
		}
	}},
	// A restart onto a watch cache of Migrations frozen in the past while
	// Pods are fresh runs a migration twice: the sweep's stale pairs.
	{name: "staleview", bugPlans: 100, options: func(buggy bool) operatortest.Options {
		return operatortest.Options{
			Scheme: staleviewScheme, CRDs: [][]byte{staleview.CRD},
			Managers: []operatortest.Manager{{Name: "migrator", Setup: func(mgr manager.Manager) error {
				return (&staleview.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Buggy: buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&staleview.Migration{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "add-index"},
				Spec: staleview.MigrationSpec{Image: "migrate:1.0"}}},
		}
	}},
	// The tutorial design's bug is found after 40-60 plans on most seeds
	// (examples/cronjob: TestTheTutorialDesignUnderOperatorTest), a plan
	// costs about 0.1 s: 300 plans bound a seed that misses to half a minute.
	{name: "cronjob", plans: 30, goal: 20, bugPlans: 300, options: cronjobOptions},
	// A large operator's bug found by a random plan: examples/bigrecreate
	// (about 5,770 stale pairs in its fault-free run), its faults narrowed
	// to lagging watches, a class the sweep has no plans for, so that
	// every plan is random and the shrink starts from a random plan's
	// faults (with default Options a ranked targeted plan finds it). The
	// generic converges catches it (the child is in every fault-free end
	// state).
	{name: bigLagOnly, bugPlans: 300, options: bigrecreateLagOptions},
	// The same large operator with default Options and the default budget:
	// its sweep ranks more plans than half the budget, and the random plans
	// take turns with them from the first plan; "found by" says which kind
	// of plan found the bug on each seed.
	{name: bigDefault, bugPlans: 100, options: bigrecreateOptions},
}

// bigDefault is the large example explored with default Options.
const bigDefault = "bigrecreate, default Options"

// bigrecreateOptions are examples/bigrecreate's operator and workload as
// its test gives them, every fault class.
func bigrecreateOptions(buggy bool) operatortest.Options {
	o := bigrecreateLagOptions(buggy)
	o.Faults = operatortest.Faults{}
	return o
}

// bigLagOnly is the large example whose bug a random plan finds.
const bigLagOnly = "bigrecreate, lagging watches only"

var bigrecreateScheme = func() *kruntime.Scheme {
	s := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, bigrecreate.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// bigrecreateLagOptions are examples/bigrecreate's operator and workload as
// its test gives them (the App created, deleted at 5 s and created again
// 1 ms later), with lag faults alone.
func bigrecreateLagOptions(buggy bool) operatortest.Options {
	app := func() *bigrecreate.App {
		return &bigrecreate.App{TypeMeta: metav1.TypeMeta{APIVersion: bigrecreate.GroupVersion.String(), Kind: "App"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: bigrecreate.AppSpec{Members: 5}}
	}
	return operatortest.Options{
		Scheme: bigrecreateScheme, CRDs: [][]byte{bigrecreate.CRD},
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&bigrecreate.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Workload: operatortest.Workload{Script: []operatortest.Step{
			operatortest.Create(0, app()),
			operatortest.Delete(5*time.Second, app()),
			operatortest.Create(5*time.Second+time.Millisecond, app()),
		}},
		Faults: operatortest.Faults{Classes: []operatortest.FaultKind{operatortest.Lag}},
	}
}

// cronjobOptions are examples/cronjob's operator as its own test gives it
// to operatortest (the sample Forbid CronJob with 90 s Jobs, its CRD and
// webhook manifests, its two history properties left out), correct or of
// the tutorial's design: a CronJob-sized operator.
func cronjobOptions(buggy bool) operatortest.Options {
	v := cronjob.Correct
	if buggy {
		v = cronjob.TutorialDesign
	}
	sample, err := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Forbid"}, {Key: "duration", Value: "90s"}})
	if err == nil {
		err = cronjob.DefaultAsTheWebhook(sample)
	}
	if err != nil {
		panic(err)
	}
	return operatortest.Options{
		Scheme:       cronjob.Scheme(),
		CRDFiles:     []string{"../../../../examples/cronjob/testdata/batch.ctrlsim.dev_cronjobs.yaml"},
		WebhookFiles: []string{"../../../../examples/cronjob/testdata/webhook-manifests.yaml"},
		Managers:     []operatortest.Manager{{Name: cronjob.Operator, Setup: cronjob.Setup(v)}},
		Objects:      []client.Object{sample},
		FaultPhase:   cronjob.FaultPhase, HealBudget: cronjob.HealBudget,
	}
}

const benchSeeds = 5

// The explorations profiled (Operatortest.Profiles): a small correct
// operator's throughput, and the bug whose shrink costs most.
const (
	profiledThroughput = "twowrites"
	profiledBug        = "cronjob"
)

// TestOperatortestFigures measures operatortest for MeasureOperatortest
// (ctrlsim bench): each exploration in a subtest of its own, as worker
// processes re-run the test up to its exploration; the figures are written
// once every subtest has run.
func TestOperatortestFigures(t *testing.T) {
	out := os.Getenv(OperatortestEnv)
	if out == "" {
		t.Skip("run by ctrlsim bench (" + OperatortestEnv + "=FILE)")
	}
	all := runtime.GOMAXPROCS(0)
	figures := Operatortest{Workers: all}
	explore := func(t *testing.T, name string, o operatortest.Options) operatortest.Result {
		var res operatortest.Result
		t.Run(name, func(t *testing.T) {
			var err error
			if res, err = operatortest.Explore(t, o); err != nil {
				t.Fatal(err)
			}
		})
		return res
	}
	// profiled is explore under a CPU profile, broken down (profile.go):
	// in this process, so with one worker only.
	profiled := func(t *testing.T, name, what string, o operatortest.Options) operatortest.Result {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			t.Fatalf("profiling %s: %v", what, err)
		}
		res := explore(t, name, o)
		pprof.StopCPUProfile()
		p, err := Breakdown(what, &buf)
		if err != nil {
			t.Fatalf("profiling %s: %v", what, err)
		}
		figures.Profiles = append(figures.Profiles, *p)
		return res
	}
	for _, op := range benchOperators {
		if op.plans == 0 {
			continue
		}
		t.Run("throughput/"+op.name, func(t *testing.T) {
			tp := Throughput{Operator: op.name + " (correct)", Plans: op.plans, Goal: op.goal}
			for _, n := range []int{1, all} {
				o := op.options(false)
				o.Checks, o.Workers = op.plans, n
				var res operatortest.Result
				if n == 1 && op.name == profiledThroughput {
					res = profiled(t, "workers=1", fmt.Sprintf("%s (correct), %d plans, 1 worker", op.name, op.plans), o)
				} else {
					res = explore(t, fmt.Sprintf("workers=%d", n), o)
				}
				if res.Caught || res.Checks != op.plans {
					t.Errorf("%s with %d workers: caught %v after %d plans, want %d plans holding", op.name, n, res.Caught, res.Checks, op.plans)
				}
				rate := float64(res.Checks) / res.Elapsed.Seconds()
				if n == 1 {
					tp.OneCore, tp.Targeted = rate, TargetedLine(res.Targeted)
				} else {
					tp.AllCores = rate
				}
			}
			figures.Throughput = append(figures.Throughput, tp)
		})
	}
	for _, op := range benchOperators {
		t.Run("bug/"+op.name, func(t *testing.T) {
			bc := BugCatch{Bug: op.name, Seeds: benchSeeds, MaxPlans: cmp.Or(op.bugPlans, 1000), CaughtFromAll: true}
			var plans, first1, min1, firstN, minN, ratio, cands, runs []float64
			for seed := uint64(1); seed <= benchSeeds; seed++ {
				for _, n := range []int{1, all} {
					o := op.options(true)
					o.Checks, o.Seed, o.Workers = bc.MaxPlans, seed, n
					var res operatortest.Result
					if n == 1 && seed == 1 && op.name == profiledBug {
						res = profiled(t, "seed=1/workers=1", fmt.Sprintf("%s bug, explorer seed 1, 1 worker", op.name), o)
					} else {
						res = explore(t, fmt.Sprintf("seed=%d/workers=%d", seed, n), o)
					}
					if !res.Caught {
						bc.CaughtFromAll = false
						continue
					}
					if n == 1 && seed == 1 {
						bc.Targeted = TargetedLine(res.Targeted)
					}
					if n == 1 {
						f := res.Findings[0]
						for _, g := range res.Findings {
							if !g.NoFault {
								f = g
								break
							}
						}
						bc.Found = append(bc.Found, fmt.Sprintf("seed %d: plan %d, %s", seed, f.FirstFailure, f.By))
						plans = append(plans, float64(res.FirstFailure))
						first1, min1 = append(first1, res.TimeToFirstFailure.Seconds()), append(min1, res.Elapsed.Seconds())
						ratio = append(ratio, res.ShrinkTime.Seconds()/res.TimeToFirstFailure.Seconds())
						cands, runs = append(cands, float64(res.ShrinkCandidates)), append(runs, float64(res.ShrinkRuns))
					} else {
						firstN, minN = append(firstN, res.TimeToFirstFailure.Seconds()), append(minN, res.Elapsed.Seconds())
					}
				}
			}
			bc.MedianPlans = median(plans)
			bc.OneWorker = Times{ToFirstFailure: median(first1), ToMinimalPlan: median(min1)}
			bc.AllWorkers = Times{ToFirstFailure: median(firstN), ToMinimalPlan: median(minN)}
			bc.ShrinkOverFind, bc.ShrinkCandidates, bc.ShrinkRuns = median(ratio), median(cands), median(runs)
			figures.Bugs = append(figures.Bugs, bc)
		})
	}
	t.Run("envtest/twowrites", func(t *testing.T) {
		figures.Envtest, figures.EnvtestNote = measureEnvtestRatio(t)
	})
	if t.Failed() {
		return
	}
	b, err := json.MarshalIndent(figures, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", b)
}

// TargetedLine is cs as one line: "crashes after a write 4 of 4, stale
// pairs 2 of 32" ("none" when the exploration had no targeted plan).
func TargetedLine(cs []search.Coverage) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}
