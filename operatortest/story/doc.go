// Package story lays out one run for a reader: which processes did what when,
// what state the objects that matter were in, where the faults were, and the
// events of each violated property, found, labelled and linked. It draws the
// layout as a static SVG (the catalogue's pictures) and as a self-contained HTML
// run inspector.
//
// It is presentation, so it lives with its readers in operatortest, not in
// the kernel: the failure report (operatortest/failure), Replay's WriteStory
// and, through Replay, the catalogue's reports. It was sim/story; the kernel
// is the kernel (what a run is), and a story only reads what the kernel
// records. It imports no part of operatortest, so it stands on operatortest's
// bottom floor (docs/design.md, "Floors inside sim/ and operatortest/").
//
// A story is built from a run's trace, the API server's log of every committed
// version (so the object a read saw is the version at its RVSeen, and the object a
// write stored the version at its RVWritten), the plan and the verdicts. Nothing
// depends on the wall clock or on map order: the same run gives the same bytes
// (internal/lint holds it to the kernel's rules, as it did in sim/).
//
// How a violation is explained (Build), for every verdict, a generic
// oracle's or an author's property, from the trace and the verdict alone:
//   - Side effects the verdict's detail names (a model's own steps, like a
//     promotion) are numbered: the first, the second. The second of something
//     that must happen once is where the violation happened, and the verdict is
//     drawn there, with the time it was judged beside it.
//   - The writes of processes to the objects the detail names (each create and
//     deletion, a finalizer release that deleted the object among them, and
//     the last other write to each) up to the judgement.
//   - A causal slice: each of those writes and side effects is tied to the
//     reconcile that made it, and that reconcile's reads that returned other
//     than the server had (trace.Step.Stale: an older version, nothing where
//     the object was, a list from a cache behind the newest change) are
//     labelled with what they returned against what was current ("saw rv=N,
//     current M", "0 items, cache at rv=A, current B") and linked to it.
//   - The last few stale reads of the named objects, of their owners, and
//     lists of their kind, by the lead processes (Input.Lead) or, when it
//     names none, by any: the last of each object or list, so that one object
//     read stale over and over does not hide another's.
//   - The user's steps on them: a workload step whose calls (the admin's, at
//     its time) wrote one of the objects or an owner.
//   - The faults' own steps up to the judgement: crashes (one after a write
//     with the write it followed), restarts, an API fault's start, holds and
//     releases, stale restarts.
//   - A verdict that names no object and no side effect is told by the
//     reconciles it names ("reconcile 17 of /example"), else by the lead
//     processes' last failing reconcile before it, and by the workload's
//     steps.
//   - The events are numbered in time order (by step within one instant). A
//     verdict with no repeated side effect is drawn at the last write to an
//     object it names (or at the reconcile it names), with its judged time
//     beside it.
//   - Objects the detail names, their owners, objects read stale, and Helm
//     releases get lanes showing their state per version (deleting,
//     status.phase, the Ready condition, a release's newest revision and
//     status, else the version).
//   - What did not happen (Input.Compared: the fault-free run of the same
//     workload, its trace): for an object the verdict names that that run
//     created, deleted or finalized (removed the last finalizer of) and
//     this run never did, or did fewer times (the compared run's extra
//     write: its second create of an object this run created once), the
//     first such write,
//     when and in which reconcile of what, and this run's last reconcile,
//     by the same controller, of the same object: what it read and wrote
//     instead and how it ended (Story.Absences, in words among the Notes).
//     That reconcile is an event, the verdict is drawn there when nothing
//     else claims it, and the object gets a lane ("never created in this
//     run") with a grey tick where the fault-free run made the write.
//   - A plan with no fault says so: the heal's line is "fault phase ends
//     (this plan has no fault)", and a note (Story.Notes) says the default
//     watch delay alone caused the violation when a stale read led to the
//     step a verdict is drawn at (how long after the change it missed the
//     read came), names a stale read among the events as the delay at work
//     otherwise, else says the workload and the default timing led there.
//
// RealScale and WorkloadScale say at what real scale the order of events a
// fault or the workload's timing makes happens (sentences for a report's "why
// a real cluster can do this"). Which of two runs that end differently on an
// object shows the bug is a verdict's rule, not the story's:
// operatortest/verdict's ShowsTheBug.
//
// Input.Lead names the processes a reader came for (an operator's among the
// built-in kube-controller-manager and kubelet): their lanes come first, and
// other processes' lanes with nothing but their start drawn are left out.
//
// # Known gaps
//
//   - The explanation reads the verdict's detail for names of objects
//     ("Kind namespace/name"), side effects and reconciles. A property whose
//     detail names none of them, in a run with no failing reconcile and no
//     workload step, gets its verdict drawn at its judged time with only the
//     faults' steps labelled (TestAVerdictNamingNothingIsToldByTheFaultsAlone).
//   - A workload step at the run's first instant cannot be told from the
//     world's set-up by the trace (both are the admin's calls at time 0): its
//     set-up's writes are taken for the step's
//     (TestAStepAtTimeZeroTakesTheSetUpsWritesForItsOwn).
//   - A stale list is judged by its kind and namespace: a change of an object
//     its label or field selector leaves out still makes it stale
//     (TestAListIsStaleByAChangeItsSelectorLeavesOut).
//   - Log lines are those sim/process captures (the context's logger,
//     controller-runtime's global one, klog); lines of code that logs
//     through a logger of its own making are not captured
//     (TestALineOfTheOperatorsOwnLoggerIsNotCaptured).
//   - An absence is a creation, deletion or finalization the compared run
//     made: a field it wrote and this run did not is not told (a converges
//     verdict on a field gets none: TestAFieldTheComparedRunWroteIsNoAbsence),
//     nor is an object of generated name, named apart in the two runs.
//   - Events are numbered ① to ⑩ and then (11), (12): the circled numbers
//     past ⑩ are missing from common fonts
//     (TestEventsPastTenAreNumberedInParentheses).
//   - Label widths are estimated from a monospace font; a viewer with another
//     font may let long labels touch
//     (TestALabelsWidthIsItsRunesTimesAMonospaceCharacter).
package story
