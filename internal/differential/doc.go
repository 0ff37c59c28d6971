// Package differential checks the apiserver model (sim/apiserver, through
// sim/kubeclient) against a real kube-apiserver started by controller-runtime's
// envtest: the same sequences of API operations run on both, and every outcome must
// be the same.
//
// An Op is one request as data (verb, kind, namespace slot, name, mutation,
// resourceVersion mode, identity), so one sequence runs unchanged on both sides:
// create, get, list with label selectors, update, status update, JSON merge, strategic
// merge and JSON patches, delete with propagation policies and resourceVersion and
// uid preconditions, finalizers added and removed, stale and missing resourceVersions,
// generateName, namespace deletion and creates in a terminating namespace, and
// requests denied by RBAC. Kinds: ConfigMap, Secret, Deployment, Role, RoleBinding,
// Namespace and the custom resource apiservertest.Widget (WidgetCRD installs it on
// envtest).
//
// Compare runs a sequence on a fresh model and on the shared envtest, each run with
// its own namespaces, and normalises each outcome: objects in their JSON form with
// uids, timestamps and generated-name suffixes replaced by placeholders and
// resourceVersions by their rank among the values the run saw on that side (equal
// stays equal, order is kept: a no-op update must keep the resourceVersion on both);
// errors by code, reason, message and details. Comparison.Diff names the first
// operation that differs and prints the sequence as Go, ready for a focused test.
//
// Divergences found and not yet fixed in the model are Tolerances: each is pinned by a
// failing focused test (divergence_test.go, TestDivergence*), and the generated
// sequences normalise or avoid it meanwhile so that they can find the next one. Drop
// a tolerance when the model is fixed. CompareSteps runs hand-written requests the
// Op vocabulary cannot express (TypeMeta, defaulting, type-specific validation).
// BenchmarkWorkload times one scripted workload on both sides. unstructured_test.go
// compares unstructured and metadata-only requests: of a CRD-only kind (Gadget, its
// CRD installed on envtest from its manifest; no Go type on the model's side) and of
// built-in kinds. crdlifecycle_test.go follows a CustomResourceDefinition created at
// run time through its life on both sides (TestCRDLifecycleMatchesKubeAPIServer):
// each side waits until the state a step names holds (the model on its virtual
// clock, envtest on the wall clock, polling dry-run creates until a new schema is
// served), then both are read and compared; condition times are zeroed.
// crdvalidation_test.go creates CRDs kube-apiserver refuses (unknown types, CEL
// rules that do not compile), updates a CRD to them and gives them to the model
// as manifests, and compares each 422 (TestInvalidCRDsAreRefusedAsKubeAPIServerRefusesThem).
// status_create_test.go writes a typed custom resource whose status fields have
// no omitempty and are required by its CRD: create, update and patch of the
// main resource (the request's status dropped or replaced by the stored one
// before validation) and status writes (TestCreateDropsStatusAsKubeAPIServerDoes).
// webhook_test.go serves a CustomDefaulter and CustomValidator from the test binary
// to an envtest of its own (WebhookInstallOptions) and to the model's process, and
// compares each write's outcome and warnings (TestAdmissionWebhooksMatchKubeAPIServer);
// conversion_test.go does the same with a conversion webhook (a Hub and a
// Convertible): kube-apiserver's read in the other version against
// process.Webhooks.Convert of the stored object (TestConversionWebhookMatchesKubeAPIServer;
// the model's apiserver does not serve several versions of a kind yet).
//
// The tests need KUBEBUILDER_ASSETS (a directory with kube-apiserver, etcd and
// kube-controller-manager, built by `make envtest-assets`); `make test-envtest` sets
// it. Without it they skip, or fail when CI=true.
//
// Seeds: TestModelMatchesKubeAPIServer draws its sequences from a fixed rapid seed
// (defaultSeed) unless -rapid.seed or RAPID_SEED is given, 50 of them unless
// -rapid.checks or RAPID_CHECKS is given. So `go test` and CI compare the same
// sequences on every run: they fail on a change that makes one of them diverge, not on
// a divergence the generator happens to draw for the first time. Looking for new
// divergences is a run of its own, with a random seed (rapid's -rapid.seed=0) or
// chosen ones and more checks:
//
//	go test ./internal/differential -run TestModelMatchesKubeAPIServer -rapid.seed=0 -rapid.checks=300
//	make test-envtest DIFF_FLAGS='-rapid.seed=0 -rapid.checks=300'
//
// A failure prints the seed that reproduces it; fix the model (or pin a known gap)
// with a focused test, as below. A change to the generator changes the sequences a
// seed draws: run a few seeds after one.
//
// RBAC: envtest runs kube-apiserver with --authorization-mode=RBAC (set explicitly
// in StartReal and checked at start with a SubjectAccessReview). Requests "as sa"
// impersonate the run's ServiceAccount with its groups. A real server authorizes from
// informer caches, so after each Role or RoleBinding write Real.SettleRBAC waits until
// a sentinel write made after it is visible to the authorizer.
//
// # Workloads: the models against kube-controller-manager
//
// The models of the workload controllers (models/kube) are compared with the real
// kube-controller-manager: hack/envtest-assets.sh builds it next to kube-apiserver, at
// the same release. TestKubeControllerManagerWorkloads starts an envtest of its own
// (the shared one's Deployments would be reconciled), then kube-controller-manager
// against it (StartKubeControllerManager: --controllers=deployment-controller,
// replicaset-controller,job-controller,statefulset-controller,endpointslice-controller,
// --leader-elect=false, --secure-port=0, the kubeconfig of envtest's admin;
// KubeControllerManagerArgs says why each), and runs
// the scripts of workloadScripts, each in a namespace of its own, all at once: a
// Deployment created, scaled up, scaled down and rolled to a new image; a rollback to
// an earlier template; a Recreate rollout; a rollout whose pods never start, past its
// progress deadline; 11 replicas; a Job whose pod succeeds; a Job of 3 completions 2
// at a time; a Job whose pods fail until BackoffLimitExceeded; an Indexed Job of 3
// completions 2 at a time, one whose pods fail past backoffLimit, and one whose
// indexes fail past backoffLimitPerIndex (the pods' index annotation and label,
// failure count, hostname and JOB_COMPLETION_INDEX recorded); StatefulSets
// (workload_statefulset_test.go): OrderedReady created, scaled down, rolled to a new
// image, scaled up and rolled back; Parallel with a partition; OnDelete with
// minReadySeconds and a pod deleted by hand; claims from a volumeClaimTemplate;
// replicas numbered from spec.ordinals.start, then renumbered; bound pods deleted
// gracefully (workload_graceful_test.go: deletionTimestamp and grace period, a
// longer grace refused, a shorter one taken, the kubelet's delete with grace 0, the
// set waiting on a Terminating pod, a force delete); a Service over three
// bare pods bound to a Node with a zone label (the real endpointslice controller
// leaves out pods whose Node it cannot find), one pod going NotReady, the selector
// and ports changed, the Service deleted. The test plays the
// kubelet (Kubelet): every pending pod gets the status a kubelet writes, Running and
// Ready, or Succeeded or Failed as its KubeletAnnotation says, with an address drawn
// from its name. After each step, once
// the step's condition holds (a finished rollout, a finished Job) and the namespace
// has not changed for WorkloadTiming.Quiet, its Deployments, ReplicaSets, Pods,
// Jobs, StatefulSets, ControllerRevisions, PersistentVolumeClaims, Services and
// EndpointSlices are recorded (Snapshot.Lines): ownerReferences,
// labels, annotations, finalizers, replicas, selectors and status, a slice's ports
// and endpoints (sorted by pod: upstream fills a slice in map order; its generation
// is left out, as it counts how pod events fell into syncs), with generated names,
// uids and timestamps normalised, and resourceVersions dropped; so are the namespace's Events
// (object, type, reason, message, source, with their counts summed). The test checks
// the records against what upstream documents (reasons, messages, revisions,
// counts). TestModelsMatchKubeControllerManager runs the same scripts in the
// simulator, with the models (operatortest/kubeworld.SetupControllers) as its
// kube-controller-manager and the same test kubelet, and requires the same records
// step by step. The divergences that remain are WorkloadGaps (workload_gaps.go),
// normalised on both sides and each pinned by a TestKnownGapWorkload* test that
// fails once the gap closes:
//
//   - gapEventsNotAggregated: the simulator's event recorder does not combine
//     similar events after the 10th as client-go's EventCorrelator does.
//   - gapNoPVCProtection: the apiserver model does not add the
//     kubernetes.io/pvc-protection finalizer to claims (StorageObjectInUseProtection
//     admission); workload_statefulset.go.
//
// namespace_gc_test.go compares models/kube's namespace controller and garbage
// collector, over every kind the apiserver model stores (kubeworld.SetupEveryKind),
// with kube-controller-manager's (--controllers=namespace-controller,
// garbage-collector-controller, on an envtest of its own):
// TestNamespaceDeletionAndCollectionMatchKubeControllerManager runs two scripts,
// a namespace holding a Role, a RoleBinding, a ResourceQuota, a LimitRange, a
// NetworkPolicy, a ServiceAccount, a Lease, a PodDisruptionBudget and a ConfigMap
// under a finalizer, deleted (its content goes, its deletion conditions while the
// finalizer holds, then the namespace), and a ClusterRole owning a
// ClusterRoleBinding, a Namespace and a ConfigMap, deleted (all three collected),
// beside a ClusterRole that names a namespaced owner (reported
// OwnerRefInvalidNamespace and kept), and requires the same records of the named
// objects after each step.
//
// Without KUBEBUILDER_ASSETS these tests skip (fail under CI=true); with it, a
// missing kube-controller-manager fails them.
//
// # Known gaps
//
//   - The generated sequences drop managedFields before comparing (each side's
//     managers are its client's User-Agent and its times its clock's);
//     TestServerSideApplyMatchesKubeAPIServer compares them, times apart.
//   - Only namespaced lists in the run's namespaces (and namespace lists filtered to
//     the run) are compared: the shared envtest holds every earlier run's objects
//     (TestOnlyTheRunsNamespacesAreListed).
//   - The resourceVersion of a list is not compared: the real one counts the
//     server's own writes (leases), which the model has no twin for
//     (TestAListsResourceVersionIsNotCompared).
//   - Deployments are written with every default already set (DeploymentSpec), so
//     the generated sequences do not exercise defaulting, which only focused tests
//     compare (TestTheSequencesDeploymentsCarryEveryDefault).
//   - No watch but TestWatchOfAFinalizedObject's (the events of finalized and
//     deleted objects), server-side apply only in apply_test.go (its own
//     sequence, not generated), dry runs only in dryrun_test.go (its own
//     script: TestDryRunMatchesKubeAPIServer), no cluster-scoped RBAC
//     objects, no deletecollection but there; Roles and RoleBindings are written by the admin
//     only, so RBAC escalation checks are not exercised.
//   - The shared envtest runs no controllers: no namespace controller, no garbage
//     collector. Namespaces stay Terminating and owned objects are not collected, on
//     both sides (namespace_gc_test.go starts its own with them).
//     The workload comparison's kube-controller-manager runs the deployment,
//     replicaset, job, statefulset and endpointslice controllers only: no garbage
//     collector (a deleted Service's slices stay, on both sides)
//     (TestNoControllerRunsBesideTheModelAndFiveInKubeControllerManager).
//   - Workloads: the Events of kube-apiserver's ClusterIP repair loop
//     (ClusterIPNotAllocated, a race of the real server's own scan) are not
//     recorded; the apiserver model allocates ClusterIPs with no repair loop
//     (TestTheRepairLoopsEventsAreNotRecorded).
//   - Workloads: only settled states are compared, after each step, not the writes
//     on the way (the Events are the only trace of the path: the ScalingReplicaSet
//     sequence of a rollout). Only the recorded fields are compared (Snapshot.Lines:
//     no pod spec beyond containers' names, images and env, and the hostname; no
//     apiserver defaults) (TestARecordKeepsOnlyTheRecordedFields).
//   - Workloads: the kubelet is the test's (Kubelet), on both sides; the kubelet
//     model of models/kube is not compared with a real kubelet. The controllers'
//     pods are never bound to a node but in the statefulset-graceful script
//     (and the endpointslice script's bare pods, which are not deleted), so
//     elsewhere their deletion is immediate on both sides: graceful termination
//     of Deployments' and Jobs' pods (terminatingReplicas, the Job's terminating
//     count, terminating endpoints) is not exercised, and the kubelet's stop of
//     a Terminating pod is the script's own delete with grace 0
//     (TestTheWorkloadsPodsAreUnboundAndDeletedAtOnce).
package differential
