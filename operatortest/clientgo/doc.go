// Package clientgo runs an operator built on client-go alone (informer
// factories, listers, a workqueue, workers under wait.Until, an event
// broadcaster, as kube-controller-manager's controllers and
// k8s.io/sample-controller are), not on controller-runtime, as a process of
// an operatortest world. Setup(start) is such an operator's
// operatortest.Manager Setup: at each start of the process, start gets an
// Env, what the operator's main builds from a kubeconfig (the REST config,
// a clientset, dynamic and metadata clients and their informer factories),
// and runs as the process's Runnable; Queue gives it the simulator's
// client-go workqueue on virtual time, in place of the one its main builds:
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
// client-go's own reflectors watch over the process's REST config, fed from
// its informers (the plan's lag, holds, relists and stale restarts), every
// goroutine start starts is a task of the process from its first call into
// the simulator, and a crash freezes them and runs start again on an empty
// cache. examples/clientgo is one such operator, a bug of that style caught
// and its correct twin holding; docs/client-go.md says how to port one.
//
// # Known gaps
//
//   - A factory the operator builds itself (informers.NewSharedInformerFactory)
//     starts its informers in map order, so a run is deterministic only with
//     one informer type on it (as in
//     sim/process.TestAClientGoInformerFactoryDeterminism); Env's factories
//     start them in the order asked for (sim/process's Known gaps).
//   - A workqueue of client-go's own (workqueue.NewTypedRateLimitingQueue,
//     built anywhere in the operator) runs on the bubble's clock, not as the
//     scheduler's model: its waiting loop is no task, and a worker blocked in
//     its Get waits outside the scheduler until an Add wakes it, rejoining
//     at its next request, so the plan cannot pick among the queue's items
//     as it picks among Queue's
//     (examples/traps.TestAClientGoOperatorWithItsOwnWorkqueueHolds); with
//     several workers, which one takes which item is Go's scheduler's
//     choice, the same in two runs on the world's one P but not under -race
//     (wallclock.TestSeveralWorkersOfAnOperatorsOwnQueueAgreeOnOneP).
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
