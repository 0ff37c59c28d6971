// Package rollout is a small operator that owns a Deployment and waits for its
// rollout, tested in the simulator with package operatortest, where the
// workload models of models/kube (the deployment and replicaset controllers
// and the kubelet) make the Deployment roll out as kube-controller-manager
// would.
//
// For each ConfigMap labelled rollout.ctrlsim.dev/app, with data image and
// replicas, it keeps a Deployment of the same name (owned by the ConfigMap)
// running that image, and writes the rollout's state in the ConfigMap's
// annotation rollout.ctrlsim.dev/status: "Progressing" until the Deployment's
// rollout is complete as `kubectl rollout status` judges it (the controller
// has observed the spec; every replica is updated and available; none of an
// old template remains), then "Complete <revision>".
//
// # Known gaps
//
//   - It is a teaching example: the status is an annotation of a ConfigMap (no
//     CRD), no Events, no finalizer; replicas that do not parse count as 1
//     (TestTheStatusIsAnAnnotationAndReplicasThatDoNotParseCountAsOne).
package rollout
