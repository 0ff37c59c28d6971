// Package clientgo runs an operator built on client-go alone (informer
// factories, listers, a workqueue, workers under wait.Until, an event
// broadcaster, as kube-controller-manager's controllers and
// k8s.io/sample-controller are), not on controller-runtime, as a process of
// an operatortest world. Setup(start) is such an operator's
// operatortest.Manager Setup: at each start of the process, start gets an
// Env, what the operator's main builds from a kubeconfig (the REST config,
// a clientset, dynamic and metadata clients and their informer factories),
// and runs as the process's Runnable; the operator may build its own
// client-go workqueue (it runs on virtual time), or take Queue's, the
// simulator's model of it, whose items the plan orders:
//
//	Managers: []operatortest.Manager{{Name: "mirror", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
//		q, err := clientgo.Queue[cache.ObjectName](env, nil)
//		if err != nil {
//			return err
//		}
//		c := NewController(env.Clientset, env.InformerFactory.Core().V1().ConfigMaps(), q)
//		env.InformerFactory.Start(ctx.Done())
//		return c.Run(ctx, 2)
//	})}},
//
// # The rules a start keeps
//
// A start is the operator's main from the point where it has a kubeconfig;
// four rules keep it a process the world can crash, restart and close:
//
//   - Return once ctx is done, straight from waiting on it (<-ctx.Done(), a
//     controller's Run(ctx, n)), not after waiting for something else: ctx
//     ends at a crash, a stop and the world's close, and a start still
//     running after its incarnation has ended is frozen there.
//   - Start every informer factory with ctx.Done() (not wait.NeverStop or a
//     channel of the operator's own), so that its goroutines end with the
//     incarnation.
//   - Take the informers from Env's factories where the operator's code
//     acts on the order of a lister's List: their listers list in the
//     plan's shuffle. An informer of a code-generated factory (the
//     operator's own clientset's, for its custom resources) is hosted the
//     same way, through InformerFor on Env's factory of its informer type
//     (below), with its clientset built on env.Config. A factory the
//     operator builds itself, from env.Config or from a kubeconfig, reaches
//     the world too (TestAnOperatorBuiltFromTheWorldsRestConfigRuns) and
//     runs deterministically (its reflectors list, then watch, and become
//     tasks in the order of what they ask: examples/kubectx), but its
//     listers list in Go map order (below). An operator that reads a
//     kubeconfig builds from Env.Kubeconfig (its --kubeconfig flag's value)
//     or from KUBECONFIG, which names the same file during the run (below).
//   - Shut a queue down when ctx ends, or not at all: a ShutDown after the
//     incarnation has ended returns at once, as client-go's does, and
//     goroutines left running at the world's close are abandoned with it and
//     named once in the test's output (package wallclock's census).
//
// A code-generated informer, hosted by Env's factory:
//
//	inf := env.InformerFactory.InformerFor(&myv1.Widget{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
//		return myinformers.NewWidgetInformer(myClientset, metav1.NamespaceAll, 0, cache.Indexers{})
//	})
//	lister := mylisters.NewWidgetLister(inf.GetIndexer())
//
// client-go's own reflectors watch over the process's REST config, fed from
// its informers (the plan's lag, holds, relists and stale restarts), every
// goroutine start starts is a task of the process from its first call into
// the simulator, and a crash freezes them and runs start again on an empty
// cache. examples/clientgo is one such operator, a bug of that style caught
// and its correct twin holding; docs/client-go.md says how to port one.
//
// # The world's kubeconfig
//
// Env.Kubeconfig is the path of a kubeconfig file naming the world, and
// KUBECONFIG names it for the run's duration (package wallclock's
// kubeconfig.go): an operator whose main or constructors read a kubeconfig
// (clientcmd.BuildConfigFromFlags("", path), ctrl.GetConfig) runs unchanged.
// A file cannot carry a Go transport, so the file names a plain-HTTP server
// that resolves nowhere (http://kubeconfig.ctrlsim.invalid), and during the
// run http.DefaultTransport, which client-go gives such a config, sends its
// requests to the process whose code makes them: a task of it, or a goroutine
// started under one however deep (an informer's reflector, started by the
// informer's own goroutine, which never calls in, joins the process of its
// nearest ancestor that is a task; sim/scheduler's JoinLineage). No listener
// is opened. One file serves every world and process, as the calling
// goroutine, not the file, says whose call it is (examples/kubectx, a
// framework that builds its context from the path, holds and its twin is
// caught; TestAnOperatorsOwnFactoryFromTheKubeconfigFileRuns).
//
// # Known gaps
//
//   - A call through the world's kubeconfig from a goroutine whose every
//     ancestor that was a task has ended, or that no process's code started
//     (the test's own), is refused with one line; and a parallel test
//     (t.Parallel) has no KUBECONFIG set, though Env.Kubeconfig still names
//     the file (sim/process.TestTheKubeconfigTransportServesNoCallerOutsideAProcess).
//   - A lister of a factory the operator builds itself
//     (informers.NewSharedInformerFactory, from Config or from the
//     kubeconfig) lists in Go map order, a new order at many calls, where
//     Env's factories' listers list in the plan's shuffle
//     (sim/process.TestAListerOfTheOperatorsOwnFactoryListsInMapOrder).
//     The reflectors of every factory list, then watch, where client-go's
//     default is to watch-list (its requests differ; the objects present at
//     an informer's start reach its handlers in an order drawn from the
//     plan, as a watch-list hands them in any order:
//     sim/process.TestAReflectorOfTheOperatorsOwnFactoryListsThenWatches).
//   - A workqueue of client-go's own (workqueue.NewTypedRateLimitingQueue,
//     built anywhere in the operator) runs on the bubble's clock, not as the
//     scheduler's model: its waiting loop is no task, and a worker blocked in
//     its Get waits outside the scheduler until an Add wakes it, rejoining
//     at its next request, so the plan cannot pick among the queue's items
//     as it picks among Queue's
//     (examples/traps.TestAClientGoOperatorWithItsOwnWorkqueueHolds); with
//     several workers, which one takes which item is Go's scheduler's
//     choice (under -race, at random), and the workers that took items at
//     one instant are put in the order of what each then asks of the world
//     (sim/scheduler's JoinAsking), so that two runs agree, under -race too,
//     whether the operator's clients are built on Config or from the
//     kubeconfig (wallclock.TestSeveralWorkersOfAnOperatorsOwnQueueDeterminism,
//     TestSeveralWorkersOnTheKubeconfigDeterminism); two that then ask
//     alike (one list, for two items) stay in Go's order.
//   - Goroutines woken at one instant that share a client-side rate limiter
//     (a clientset's, client-go's default: 5 requests a second, a burst of
//     10) take its tokens before their first call into the simulator, in
//     the order Go's scheduler runs them: where the bucket runs dry, which
//     of them waits is Go's choice, and one plan gives several traces (ten
//     controllers each woken from its own WaitForCacheSync:
//     TestTenControllersTakingTheClientsTokensPartReplays). The polls
//     themselves are not the cause: with no limit the same ten agree
//     (TestTenControllersSyncingTheirOwnCachesDeterminism).
//   - The watches client-go's reflectors open ignore timeoutSeconds, field
//     selectors other than metadata.name and metadata.namespace, and RBAC;
//     an object that stops matching a watch's label selector sends no
//     DELETED (sim/process's and restapi's Known gaps;
//     sim/process.TestAClientGoWatchIgnoresTimeoutSecondsAndRefusesOtherFieldSelectors).
//   - An event broadcaster's correlator (its spam filter and aggregation)
//     runs on the bubble's clock, not the scheduler's: a repeated Event is
//     counted, not written again as by the simulator's own recorder
//     (TestABroadcastersCorrelatorCountsByTheBubblesClock).
//   - Setup drops utilruntime.HandleError's 1 ms backoff for the whole test
//     binary, not only for the worlds that use it
//     (TestSetupDropsTheErrorBackoffForTheWholeBinary).
package clientgo
