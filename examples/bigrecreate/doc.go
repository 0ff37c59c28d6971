// Package bigrecreate is the third bug at a real operator's size that the
// search must find at a median plan of at most 30: a child skipped when its
// owner is deleted and created again under its name a moment later (kubectl
// replace --force, a GitOps tool replacing the object), in an operator that
// writes as much as a real one does, so that the fault-free run of its
// workload gives the sweep over a thousand stale pairs to choose from.
//
// An App of spec.members members (at most 5) gets a headless Service
// <name> and, for each member i, a ConfigMap <name>-<i>-config, a Secret
// <name>-<i>-credentials and a Service <name>-<i>, all controlled by the
// App (the garbage collector deletes them once it is gone); its status
// (phase, ready members, observed generation) is written as each member is
// made, and an App whose status says Ready for its generation is not
// worked on again until its spec changes. A finalizer holds a deleted App
// while its members leave, the last first (each member's objects deleted,
// the members left written in status); the garbage collector deletes the
// headless Service after it. The operator caches Apps, ConfigMaps,
// Secrets and Services, and finds a child by its name in its cache.
//
// The user creates the App, deletes it at 5 s and creates it again under
// its name 1 ms later; the create meets the App still held by the
// finalizer and is retried 1 s later, as a user's or a GitOps tool's is,
// and lands once the members have left and the garbage collector has
// deleted the headless Service. (Without the finalizer the new App comes
// at once and the operator looks for its children while the collector is
// still deleting the old App's: the buggy twin's fault-free run already
// races, and interleavings-agree says its two fault-free schedules end
// apart.) An
// operator whose cache still holds an old App's child when it works on the
// new App (a watch of Services held across the collector's deletion, a
// restart onto a view from before it) finds the child under its name: the
// buggy twin (Buggy) takes it for the new App's, writes Ready, and when the
// collector's deletion reaches it, the Ready status keeps it from looking
// again: the new App is left without the child for good. The correct
// operator takes a child found for the App's only when the App controls it
// (its controller reference carries the live App's uid, as
// metav1.IsControlledBy checks) and not being deleted, takes an
// AlreadyExists for nothing until its cache shows the object, and
// otherwise looks again when the old child's deletion reaches it (or
// WaitForOld later), then makes it; it writes Ready only when every child
// is the App's own. A member's objects leave with a uid precondition, and
// only those the deleted App controls (a cache behind the re-creation
// shows the new App's too).
//
// The author's property ReadyAppsHaveTheirChildren (bigrecreate_test.go:
// a Ready App at the end has every child its members call for, controlled
// by it) catches the bug, and so does the generic converges (the child is
// missing from the end state of every fault-free run).
// TestTheSearchFindsTheSkippedChildAmongAThousandStalePairs explores with
// default Options from explorer seeds 1-5 (seed 1 in make test) and states how many stale pairs
// the sweep had (about 5,690) and at which plan it found the bug (8 on
// every seed: a hold of the operator's Services from just after the
// headless Service's creation across the fault phase, a ranked plan; 23
// before kube-controller-manager's client rate, which moves the
// collector's writes of the fault-free run and with them the ranked plans
// before it; 19 before the error answers that leave an intermediate state
// were ranked among them). TestTheCorrectOperatorHoldsTheSearch holds 30 plans (1,000
// with CTRLSIM_TWIN=1000, measured before that: all of them ranked
// targeted plans, 776 of them stale pairs; 19 minutes on a loaded machine
// of 2 cores).
//
// # Known gaps
//
//   - The members are objects only: no StatefulSet, no pods, no readiness;
//     "ready" is "its objects are made"
//     (TestMembersAreObjectsOnlyAndReadyWhenMade).
//   - A lowered spec.members leaves the members beyond it (no scale-down):
//     the test's workload never changes the spec
//     (TestALoweredMemberCountLeavesTheMembersBeyondIt).
package bigrecreate
