package kopf

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// Names of the world.
const (
	Operator  = "kopf"    // the operator's process
	Namespace = "default" // where the KopfExamples live
	// Kind is KopfExample as plans name kinds (lag, hold).
	Kind = "kopf.dev/v1/KopfExample"
)

// CRD installs KopfExample: namespaced, with a status subresource.
var CRD = apiserver.CRD{GVK: kopfop.KopfExampleGVK, Plural: kopfop.Plural, Namespaced: true, Status: true}

// Options shape a world.
type Options struct {
	Variant variant.Variant // of the operator
	// Quiet gives the operator QuietHandler instead of ReportHandler: handling an
	// object then makes no watch event of its own.
	Quiet bool
	// Objects are the KopfExamples created before time starts; nil means x and y.
	Objects []string
}

// Scheme returns client-go's scheme with KopfExample.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(kopfop.AddToScheme) }

// sharedScheme is one Scheme for every world: a scheme is only read once
// built, and building client-go's costs more than a short run of a world.
var sharedScheme = sync.OnceValue(Scheme)

// World is the world of o: the kopf operator of o.Variant (with ReportHandler
// unless o.Quiet) and the KopfExamples of o.Objects (x and y by default).
//
// Workload actions (every one writes as cluster admin, like kubectl):
//
//	at 1s create name=z                  // a new KopfExample
//	at 1s edit name=x field=b            // change spec.field (an update cause)
//	at 1s edit-every name=x every=500ms until=2m
//	at 1s touch name=x                   // a status write by someone else: an event, no change kopf diffs
//	at 1s touch-every name=x every=1s until=5m
//	at 1s grow name=x bytes=300000       // a spec so large that kopf's diff-base annotation passes 256 KiB
//	at 1s alternate-422 name=x           // from now, every other PATCH of x fails with 422 (a flaky admission webhook)
//	at 1s poison name=x                  // from now, the operator cannot decode x's watch events
//
// alternate-422 and poison end when the cluster heals.
func World(o Options) cluster.Options {
	objects := o.Objects
	if objects == nil {
		objects = []string{"x", "y"}
	}
	w := &world{alternating: map[string]int{}, poisoned: map[string]bool{}}
	return cluster.Options{
		Scheme: sharedScheme(),
		CRDs:   []apiserver.CRD{CRD},
		Processes: []process.Spec{{Name: Operator, Setup: func(p *process.Process) error {
			c := &faultyClient{Client: p.GetClient(), w: w}
			h := kopfop.ReportHandler(c, p.GetAPIReader())
			if o.Quiet {
				h = kopfop.QuietHandler()
			}
			r := &kopfop.Reconciler{Client: c, Clock: p.Clock(), Exit: p.Exit, Variant: o.Variant, Handlers: []kopfop.Handler{h}}
			return r.SetupWithManager(p.Manager())
		}}},
		Setup: func(c *cluster.Cluster) error {
			w.c = c
			for _, name := range objects {
				if err := create(c, name); err != nil {
					return err
				}
			}
			return nil
		},
		Actions: map[string]cluster.Action{
			"create": cluster.Act(func(c *cluster.Cluster, a plan.Args) error { return create(c, a.Get("name")) }, "name"),
			"edit": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return modify(c, a.Get("name"), func(k *kopfop.KopfExample) { k.Spec.Field = a.Get("field") })
			}, "name", "field"),
			"edit-every": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				n := 0
				return every(c, a, func() error {
					n++
					return modify(c, a.Get("name"), func(k *kopfop.KopfExample) { k.Spec.Field = "edit-" + strconv.Itoa(n) })
				})
			}, "name", "every", "until"),
			"touch": cluster.Act(func(c *cluster.Cluster, a plan.Args) error { return touch(c, a.Get("name")) }, "name"),
			"touch-every": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return every(c, a, func() error { return touch(c, a.Get("name")) })
			}, "name", "every", "until"),
			"grow": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				n, err := strconv.Atoi(a.Get("bytes"))
				if err != nil {
					return fmt.Errorf("grow: bytes: %w", err)
				}
				return modify(c, a.Get("name"), func(k *kopfop.KopfExample) { k.Spec.Items = []string{strings.Repeat("x", n)} })
			}, "bytes", "name"),
			"alternate-422": cluster.Act(func(_ *cluster.Cluster, a plan.Args) error {
				w.alternating[a.Get("name")] = 0
				return nil
			}, "name"),
			"poison": cluster.Act(func(_ *cluster.Cluster, a plan.Args) error {
				w.poisoned[a.Get("name")] = true
				return nil
			}, "name"),
		},
	}
}

// world is the state a world's actions share with its operator's client.
type world struct {
	c           *cluster.Cluster
	alternating map[string]int // name -> PATCHes seen since alternate-422
	poisoned    map[string]bool
}

func (w *world) active() bool { return w.c != nil && !w.c.Healed() }

// faultyClient is the operator's client with the world's two faults that a plan's
// API faults cannot express: a 422 on every other PATCH of an object (injected
// into the apiserver model for that one request, so the trace shows the server's
// answer), and watch events of an object that the operator cannot decode.
type faultyClient struct {
	client.Client
	w *world
}

// Get stands for kopf's reading of a raw watch event: for a poisoned object it
// fails as decoding a malformed event would, outside the throttled span.
func (f *faultyClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := f.Client.Get(ctx, key, obj, opts...)
	if _, ok := obj.(*kopfop.KopfExample); ok && f.w.active() && key.Namespace == Namespace && f.w.poisoned[key.Name] {
		return fmt.Errorf("decoding KopfExample %s from its watch event: json: cannot unmarshal number into Go struct field KopfExampleSpec.spec.field of type string", key)
	}
	return err
}

// Patch fails every other PATCH of an object under alternate-422, the first one
// included.
func (f *faultyClient) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	name := obj.GetName()
	if n, ok := f.w.alternating[name]; ok && f.w.active() && obj.GetNamespace() == Namespace {
		f.w.alternating[name] = n + 1
		if n%2 == 0 {
			remove := f.w.c.Server.InjectFault(apiserver.Fault{Verb: "patch", Resource: kopfop.Plural, Namespace: Namespace, Name: name,
				Code: 422, Field: "metadata.annotations", Message: "rejected by a flaky admission webhook", Count: 1})
			defer remove()
		}
	}
	return f.Client.Patch(ctx, obj, p, opts...)
}

func create(c *cluster.Cluster, name string) error {
	return c.Admin().Create(context.Background(), &kopfop.KopfExample{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name},
		Spec:       kopfop.KopfExampleSpec{Field: "a"},
	})
}

// modify is kubectl edit of the spec: a Get and an Update.
func modify(c *cluster.Cluster, name string, change func(*kopfop.KopfExample)) error {
	ctx := context.Background()
	var k kopfop.KopfExample
	if err := c.Admin().Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, &k); err != nil {
		return err
	}
	change(&k)
	return c.Admin().Update(ctx, &k)
}

// touch is someone else's status write.
func touch(c *cluster.Cluster, name string) error {
	ctx := context.Background()
	var k kopfop.KopfExample
	if err := c.Admin().Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, &k); err != nil {
		return err
	}
	k.Status.Touches++
	return c.Admin().Status().Update(ctx, &k)
}

// every runs f now and then every a["every"] until the run time a["until"] (or
// the end of the run), stopping when the cluster heals or f fails.
func every(c *cluster.Cluster, a plan.Args, f func() error) error {
	period, err := time.ParseDuration(a.Get("every"))
	if err != nil || period <= 0 {
		return fmt.Errorf("every: want a positive duration, got %q", a.Get("every"))
	}
	var until time.Duration
	if s := a.Get("until"); s != "" {
		if until, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("until: %w", err)
		}
	}
	var tick func()
	tick = func() {
		if c.Healed() || (until > 0 && c.Now() >= until) || f() != nil {
			return
		}
		c.Clock.AfterFunc(period, tick)
	}
	tick()
	return nil
}
