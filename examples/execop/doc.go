// Package execop is a small operator that configures its operand by running
// the operand's CLI in its pod, as database operators do after they create a
// StatefulSet: the pattern "exec a tool in the pod to apply the spec".
//
// For each App (execop.ctrlsim.dev/v1) it keeps a StatefulSet of one replica
// running the app image, and once the pod <name>-0 runs it execs
// `app-cli set-config <spec.config>` in the pod's container "app" through
// client-go's SPDY executor on mgr.GetConfig() (remotecommand, unchanged),
// then records status.appliedGeneration. It reads the applied config back
// first (`app-cli get-config`) so that a pod replaced since, or an exec that
// failed, is applied again.
//
// Its buggy twin (Buggy) records appliedGeneration before the exec and trusts
// it: when the exec fails (the apiserver or the kubelet fails it, the process
// crashes between the two) the config is never applied, and nothing in the
// API objects shows it. The test's fake of app-cli keeps the config in the
// container's files, and a small property reads it back.
//
// # Known gaps
//
//   - A teaching example: one replica, no Events, no conditions; the CLI is a
//     fake of the test (TestOneReplicaNoEventAndNoCondition).
package execop
