// Package generatename is the smallest operator whose child has a generated
// name: a Snapshot gets a ConfigMap created with generateName
// (<snapshot>-xxxxx), owned by it, holding spec.source; the operator records
// the ConfigMap's name in status.configMapName.
//
// A generated name cannot be looked up, so before it creates one the
// operator lists its children live (the manager's APIReader), as the cache
// may not show the one it created a moment ago; one worker per object
// (controller-runtime's default) makes the list and the create atomic for
// that object.
//
// The pattern's trap for a test harness: the generated suffix differs between
// two runs, in the child's name and where status refers to it; and how many
// children the operator made before the one that lives (one for a Snapshot
// the user then deleted and re-created, or none) races with the user's
// steps, so the child cannot be named by how many of its prefix came before
// it either. operatortest names it by the object it is: its place among the
// live children of its prefix, ordered by owner (operatortest's
// generated.go).
//
// The buggy twin (Buggy) lists its children from the cache: a reconcile that
// runs before the cache shows the child it created (a lagging watch, a
// restart onto a lagging apiserver) creates a second one.
//
// # Known gaps
//
//   - A child someone else deletes is re-created under a new name; one
//     deleted while the operator's APIReader list is in flight is found on
//     the next reconcile (its deletion is watched)
//     (examples/patterns.TestGenerateNameRecreatesADeletedChildUnderANewName).
package generatename
