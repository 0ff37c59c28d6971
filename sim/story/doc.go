// Package story lays out one run for a reader: which processes did what when,
// what state the objects that matter were in, where the faults were, and the
// events of each violated property, found, labelled and linked. It draws the
// layout as a static SVG (the catalogue's pictures) and as a self-contained HTML
// run inspector.
//
// A story is built from a run's trace, the API server's log of every committed
// version (so the object a read saw is the version at its RVSeen, and the object a
// write stored the version at its RVWritten), the plan and the verdicts. Nothing
// depends on the wall clock or on map order: the same run gives the same bytes.
//
// How a violation is explained (Build):
//   - Side effects the verdict's detail names (a model's own steps, like a
//     promotion) are numbered: the first, the second. The second of something
//     that must happen once is where the violation happened, and the verdict is
//     drawn there, with the time it was judged beside it.
//   - Each side effect is tied to the reconcile that was running when it happened,
//     and that reconcile's stale reads (RVSeen older than RVCurrent) are labelled
//     "saw rv=N, current M" and linked to it.
//   - Deletions of the objects the detail names, and crashes and restarts before
//     the judgement, are labelled.
//   - Objects the detail names, objects read stale, and Helm releases get lanes
//     showing their state per version (deleting, status.phase, the Ready
//     condition, a release's newest revision and status, else the version).
//
// Input.Lead names the processes a reader came for (an operator's among the
// built-in kube-controller-manager and kubelet): their lanes come first, and
// other processes' lanes with nothing but their start drawn are left out.
//
// # Known gaps
//
//   - The explanation is heuristic: it reads the verdict's detail for names of
//     objects and side effects. A property whose detail names neither gets its
//     verdict drawn at its judged time with no labelled events.
//   - Log lines are those of reconcilers (the context's logger); lines of code
//     that logs through a logger of its own making are not captured.
//   - Label widths are estimated from a monospace font; a viewer with another
//     font may let long labels touch.
package story
