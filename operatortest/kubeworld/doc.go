// Package kubeworld wires the workload models of models/kube into a simulated
// world: the replicaset, deployment, job, statefulset and endpointslice controllers in the
// kube-controller-manager process (SetupControllers, or SetupControllersFor
// only the models whose watched kinds, Models' Triggers, a world may hold),
// and the kubelet model as
// a process of its own (Kubelet), driven by the plan's seed and its workload
// faults (notready, crashloop, podfail, nodelost), which end with the fault
// phase (the cluster's Heal), as a real fault stops: a never-ready pod becomes
// ready at its next readiness probe, a crash-looping container runs as it
// would have from its next restart, a lost node comes back (its pods not yet
// evicted are Ready again, the evicted ones stay deleted); a failed pod stays
// failed. A pod bound after the heal gets no fault (kube.PodFault,
// kube.NodeLoss). The kubelet's scheduled stops of deleted pods (kube.Kubelet's
// Stops: a kill at a grace period's end) are its process's scheduled work
// (process.Scheduled), which a run waits for before it is judged
// (sim/cluster's Phases.Scheduled).
//
// # Known gaps
//
//   - The kubelet's draws come from a source of their own (the plan's seed,
//     or Delays.Seed), a stream per pod and step ("kubelet/<pod>/<step>"),
//     not from the cluster's source: the world's other draws do not shift
//     them, and they do not shift the world's, nor one pod's another's. A
//     pod of a generated name is known by its generateName and how many of
//     that name came before it: two pods of one prefix created concurrently
//     may swap draws between two runs
//     (TestTwoPodsOfOnePrefixMetInTheOtherOrderSwapDraws).
//   - A fault ends at once at the heal, for every pod and node it acts on;
//     a real recovery (a dependency back, a network partition mended) is
//     rarely so tidy. A never-ready pod is probed every 10s from its
//     container's start (the default periodSeconds, without the prober's
//     random initial delay), and so is a lost node's kubelet retrying
//     (TestHealNotReady, TestHealNodeLostBeforeEviction).
//   - The kubelet keeps what it drew for each pod (delays, fault) in memory:
//     were its process restarted, it would draw again and forget the faults of
//     pods already bound. No plan crashes it (it is not among the processes a
//     space names: TestTheKubeletIsNoProcessAPlanCrashes).
package kubeworld
