// Package cause reads the errors a run's reconciles end in by their cause,
// not their text: what no-error-at-rest compares and excuses by (package
// verdict). ErrorsAtRest are each controller's last reconcile of an object
// that ended in an error (the results of an incarnation that crashed since
// forgotten: its queue died with it); Met are the errors of every
// reconcile.
//
// An error's cause is, in this order:
//
//   - the user's value: the values its text quotes (Go-quoted, as field
//     errors, kube-apiserver's allocators and clients' not-found errors
//     write them) that the workload wrote and left in place, each named by
//     the object it wrote it into and the field path ("<the user's value:
//     BrokerService queue/amqp spec.clusterIP "ac">"). What the workload
//     wrote is what its edits (the admin's updates and patches: a drawn or
//     scripted step) changed in what the user asks for (metadata and
//     status aside): each string leaf set, and "" for one removed (a
//     reference emptied is "" to the code that reads it); the seed
//     objects are the test's set-up, not an edit. Left in place: the
//     object holds it at that path at the run's end. The name of an
//     object the workload deleted and that is still gone is the user's
//     too ("Secret queue/amqp-user deleted": a dependency removed). One invalid value
//     met by a create in one run (a Service's clusterIP goes to its IP
//     allocator before validation: a 500) and by an update in another (a
//     422 with field errors), in one controller or another, is one cause;
//     which call met it raced the user's edit.
//   - a validation's causes (canon.ErrorCause): the object refused and its
//     causes' field paths, types and values.
//   - its text, canonical (canon's Tokens; Unix instants of the run
//     masked).
//
// Refused says whether an error is kube-apiserver's refusal of a write for
// what it holds (a validation's, an internal error of the write, a
// webhook's denial): the API's word that the value is invalid, whether or
// not a fault-free run ever sent it.
//
// # Known gaps
//
//   - Only quoted values are read: a number the user set (a port) is not
//     quoted in a refusal, nor a value an operator's message names
//     unquoted, so such an error is compared by its causes or its text
//     (TestARefusalOfANumberTheUserSetIsNotTheUsersValue). A quoted value
//     that equals one the user wrote is taken for it, whatever the
//     operator quoted it for.
package cause
