package clientgo

import (
	"context"
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// Env is what an operator built on client-go (informers.NewSharedInformerFactory,
// listers, a workqueue, workers under wait.Until, as kube-controller-manager's
// controllers and k8s.io/sample-controller are) is given by Setup at each
// start of its process: what its main builds from a kubeconfig.
type Env struct {
	// Config is the process's REST config (mgr.GetConfig()): every request
	// is a call of the process (trace, latency, faults, crash points).
	Config *rest.Config
	// Clientset, Dynamic and Metadata are clients on Config.
	Clientset kubernetes.Interface
	Dynamic   dynamic.Interface
	Metadata  metadata.Interface
	// InformerFactory, DynamicInformerFactory and MetadataInformerFactory
	// are client-go's own factories (no resync) on those clients, one per informer type or
	// resource, started in the order the operator asked for them
	// (sim/process's clientgo_factory.go says why). Their reflectors list and watch the
	// process's own informers of each kind (the plan's lag, holds, relists
	// and stale restarts; package restapi's watch.go), and their goroutines
	// run in the world's bubble. Start them (factory.Start) from start, as a
	// main does.
	InformerFactory         informers.SharedInformerFactory
	DynamicInformerFactory  dynamicinformer.DynamicSharedInformerFactory
	MetadataInformerFactory metadatainformer.SharedInformerFactory
	// Manager is the process's manager, for Queue.
	Manager manager.Manager
	// Kubeconfig is the path of a kubeconfig file naming the world (the
	// one KUBECONFIG names during the run), for an operator whose own
	// constructors read one: a clientset, an informer factory or an event
	// broadcaster built from it (clientcmd.BuildConfigFromFlags("",
	// env.Kubeconfig)) makes this process's calls, from the start's
	// goroutine and from every goroutine started under it (an informer's
	// reflector, a worker), as one built on Config does.
	Kubeconfig string
}

// Setup is the Setup of an operator built on client-go (an
// operatortest.Manager's):
//
//	Managers: []operatortest.Manager{{Name: "op", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
//		c := NewController(env.Clientset, env.InformerFactory.Core().V1().ConfigMaps(), ..., queue)
//		env.InformerFactory.Start(ctx.Done())
//		return c.Run(ctx, 2)
//	})}},
//
// At each start of the process it builds the clients and factories on the
// incarnation's REST config and runs start(ctx, env) as a Runnable of the
// process (a task; it may block, on ctx or a WaitForCacheSync, in virtual
// time). The goroutines start starts (the factories', workers under
// wait.Until, an event broadcaster's) become tasks of the process at their
// first call into the simulator (a request, a Queue call), run when
// the plan picks them and are frozen with a crash; the restarted process
// runs start again on an empty cache. ctx ends when the incarnation does (a
// crash, a stop) or the world closes, so that the informers' goroutines
// return instead of staying blocked; what they do then never reaches the
// simulator (a dead incarnation's calls are frozen, as with SIGKILL).
func Setup(start func(ctx context.Context, env Env) error) func(mgr manager.Manager) error {
	return func(mgr manager.Manager) error {
		process.DropErrorBackoff()
		kubeconfig, err := wallclock.Kubeconfig()
		if err != nil {
			return fmt.Errorf("client-go operator: the world's kubeconfig: %w", err)
		}
		cfg := mgr.GetConfig()
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("client-go operator: clientset: %w", err)
		}
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("client-go operator: dynamic client: %w", err)
		}
		md, err := metadata.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("client-go operator: metadata client: %w", err)
		}
		env := Env{
			Config: cfg, Clientset: cs, Dynamic: dyn, Metadata: md, Manager: mgr, Kubeconfig: kubeconfig,
			MetadataInformerFactory: process.NewMetadataInformerFactory(mgr, md),
			InformerFactory:         process.NewInformerFactory(mgr, cs),
			DynamicInformerFactory:  process.NewDynamicInformerFactory(mgr, dyn),
		}
		incarnation, err := process.IncarnationContext(mgr)
		if err != nil {
			return err
		}
		return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(incarnation, cancel)()
			return start(ctx, env)
		}))
	}
}

// Queue is the workqueue a client-go operator builds with
// workqueue.NewTypedRateLimitingQueue(rl), as the simulator's model of it
// (package queue) on virtual time, in env's process: a worker's Get waits in
// the scheduler, and the goroutines that call it are tasks of the process
// (process.NewClientGoQueue). rl nil is client-go's
// DefaultTypedControllerRateLimiter. A queue of client-go's own built in the
// world instead (workqueue.NewTypedRateLimitingQueue, in a start, a
// constructor or a Setup) runs too, on the bubble's clock, which is virtual
// time (examples/dynctl).
func Queue[T comparable](env Env, rl workqueue.TypedRateLimiter[T]) (workqueue.TypedRateLimitingInterface[T], error) {
	return process.NewClientGoQueue(env.Manager, rl)
}
