// Package listermutate is a client-go operator (informers, listers, a
// rate-limiting workqueue, workers under wait.UntilWithContext, as
// k8s.io/sample-controller is written) that stamps each ConfigMap labelled
// stamp.ctrlsim.dev/enabled with a digest of its data, in the
// stamp.ctrlsim.dev/digest annotation, so that the pods that mount it roll
// when it changes.
//
// The Buggy controller writes the annotation into the ConfigMap its lister
// returned and updates that: the lister's object is the informer's cache
// itself. While the update succeeds nothing shows (the watch event of the
// write replaces the cached object), but when the apiserver fails it (a 500
// of an etcd leader change, a 429 of API priority and fairness, a 409), the
// cache keeps the digest that was never stored: the retry finds the
// ConfigMap stamped and does nothing, and the ConfigMap stays unstamped
// until something else changes it. The correct controller deep-copies the
// lister's object first (client-go's rule: objects from a lister are
// read-only) and its retry writes the digest. The default Options catch the
// twin: the API errors a world draws are aimed at the writes of the
// fault-free run (operatortest/world's Faults doc); nothing in the test
// names the bug.
//
// # Known gaps
//
//   - A teaching example: one kind, one annotation, no status subresource,
//     no finalizer (TestTheStamperWritesOneKindNoStatusAndNoFinalizer). Its
//     queue is operatortest/clientgo's Queue where its main would build
//     workqueue.NewTypedRateLimitingQueue (sim/process's Known gaps say
//     why).
package listermutate
