// Package builtins is which built-in controllers a world starts, and the
// collector and the namespace controller it sets up. A real
// kube-controller-manager runs every controller, but a controller none of
// whose watched kinds ever has an object never reconciles anything: its
// informers stay empty, its workers wait. Starting it only costs start-up (a builder, sources,
// informers, workers: most of a small operator's plan). So a run starts the
// workload models, the kubelet and the garbage collector's controllers only
// for the kinds the world may hold (held), and checks afterwards that it was
// so: a run in which an object of another kind appeared, or an object named
// an owner of another kind (the collector of that kind would have queued it),
// is run again with those kinds held, until none is missing. A run's result
// is thus the run with every controller that acts in it, a function of its
// plan alone; it differs from the run with every controller only in the
// start-up lines of the idle ones and in the schedule's draws that picking
// among their starting workers took.
//
// The kinds held at first are the world's own (its CRDs', its objects' and its
// script's) and those of every object the probe, the fault-free run of the
// seed objects alone with every controller, made: the kinds the operator
// makes with no workload, so that most runs need no second run.
//
// The collector and the namespace controller are lazy in the same way, by
// what a kind's objects do rather than by their existence alone: a real
// kube-controller-manager collects every kind discovery lists and deletes
// every namespaced kind with its namespace, but the collector of a kind none
// of whose objects names an owner, carries the orphan or foregroundDeletion
// finalizer or is named as an owner never writes anything, and the namespace
// controller's list of a kind none of whose objects is in a deleting
// namespace finds nothing to delete. So a run collects, besides the world's
// own kinds (World.Collected), the kinds held for an owner relation (owned), and
// deletes with a namespace, besides Collected's namespaced kinds, the kinds
// held for an object in a deleting namespace (content): a run in which an
// object of another kind does either is run again with it held. The
// content held at first is every kind the world holds at first; the owned,
// those the probe saw in an owner relation: Events and leader-election
// Leases, which most operators write, start no collector of their own.
//
// Every run given its kinds also hosts kube-controller-manager's
// serviceaccount and root-ca-cert-publisher controllers (package kcm,
// SetupCollectors): every namespace has its default ServiceAccount and its
// kube-root-ca.crt ConfigMap, as on a real cluster, and a world holds those
// kinds from the start (NamespaceContent). They are the cluster's writes
// (process kube-controller-manager), not the operator's. The namespaces
// the cluster has before the run (the system namespaces, the seed objects')
// have their content from its bootstrap (SeedNamespaceContent: the same
// controllers' first sync, before time starts, in the log but in no step of
// the trace, and no target of a fault: operatortest/reference), as a real
// cluster had it long before the test; the hosted controllers write only
// for a namespace made, or content deleted or edited, during the run. They get an
// informer factory of their own (kcm.Setup's), beside the workload
// controllers' (package kubeworld's): none of their informers' kinds is one
// of those, where kube-controller-manager shares one factory.
//
// Holding is the kinds a run holds (Seen: those its objects had; Missing:
// those it lacked), SetupCollectors sets the collector and the namespace
// controller up in kube-controller-manager's process; package world starts
// the workload models and the kubelet (operatortest/kubeworld) by the same
// Holding, runs the probe and runs a plan again with what it lacked.
//
// # Known gaps
//
//   - The probe (held nil) and a world outside a testing/synctest bubble
//     host no controller of package kcm and seed no namespace content:
//     their namespaces stay without their ServiceAccount and ConfigMap
//     (operatortest runs every plan in a bubble, and a world holds those
//     kinds from the start without the probe;
//     TestTheProbeMakesNoNamespaceContent).
//   - A run with fewer built-in controllers than every one draws its
//     schedule among fewer starting workers: its trace differs
//     from the all-controller run's of the same plan (its verdicts need
//     not: the idle controllers never act;
//     TestARunWithoutTheIdleControllersHasAnotherTrace). A kind that
//     appears only in some plans costs those plans a second run
//     (operatortest/world.TestARunThatMakesAKindNotHeldRunsAgainWithItsControllers).
//   - The garbage collector and the namespace controller know the CRDs',
//     the seed objects' and common children's kinds (ConfigMap, Secret,
//     Service, ServiceAccount, Deployment, StatefulSet, Job), Pods,
//     ReplicaSets, EndpointSlices, ControllerRevisions and
//     PersistentVolumeClaims when the workload models run, and, of every
//     other kind served when kube-controller-manager starts (RBAC, quotas,
//     NetworkPolicies, Leases, Events, Namespaces, ...), those a run holds
//     for an owner relation (the collector) or for an object in a deleting
//     namespace (the namespace controller), in their preferred version
//     (SetupCollectors): an object written in another version of a
//     built-in kind served in several is neither collected nor deleted with its namespace
//     (models/kube's Known gaps;
//     TestAHeldKindIsCollectedAndDeletedInItsPreferredVersionOnly). A kind that only a CRD created during the
//     run serves (no Go type, no manifest in Options.CRDs) is collected from
//     the collector's first discovery sync after its CRD is Established
//     (every 30 s from the start of kube-controller-manager, as upstream's
//     GarbageCollector.Sync; models/kube), so a dependent of a deleted owner
//     of that kind waits for that sync as on a real cluster
//     (operatortest/kubeworld.TestTheCollectorCollectsDependentsOfAKindServedAtRunTime); such a kind is
//     not judged by the generic oracles, nor deleted by the namespace
//     controller.
package builtins
