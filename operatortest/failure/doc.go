// Package failure tells a failing plan's story: the report a failing test
// prints (the violated property, what it saw, what each fault stands for on
// a real cluster and the steps from it to the violation (the fault is all
// that sets the two runs apart; when every write the verdict counts that one
// run made and the other did not is the fault-free run's, the heading says
// it is told under what this run never did: package verdict's doc), what the run never
// did that the fault-free run of the same workload did (ComparedRun: that
// run is run again for its trace when a violation compares with it; the
// story tells its absences), a replay command
// and the timeline, the controllers' log lines and Events included; the
// built-in processes' start-up and their steps on objects the operator
// never touched folded, -ctrlsim.timeline=full keeps them), and the run's
// picture (.svg), inspector (.html) and a markdown report for an upstream
// issue (.md) in the artifacts directory (for an interleavings-agree
// violation that blames another fault-free run than the plan's own, its
// plan is saved there beside them as <test>.suspect.plan with a replay
// line, and the story draws that suspect when interleavings-agree is all
// the run violates: SuspectOf), under the package's path in its
// module (-ctrlsim.artifacts=DIR, else $CTRLSIM_ARTIFACTS, else a fresh
// temporary directory the failure names). A replay with -ctrlsim.plan
// writes them again, and `ctrlsim report PLAN` replays a saved plan and
// prints that report. RunPattern is the go test -run pattern of one test;
// ReplayCommand, the replay line the failure prints and the saved plan's
// `# replay:` comment and the markdown report repeat, names the test's
// package by its import path (ImportPath: its go.mod's module path), so
// that it runs pasted at the module's root as in the package's directory.
// The plan is printed and saved with its seed objects named by kind and name
// (PlanText, SeedNames: object=ConfigMap/team/app), which a saved plan read
// back resolves to their indexes.
//
// # Known gaps
//
//   - Whether the extra writes are the fault-free run's is read from the
//     verdict's words (verdict.ExtraInOtherRunOnly over its detail), as the
//     suspect is (SuspectOf): an author's property whose detail says "the
//     extra ... is in" another run is read so too
//     (TestAnAuthorsDetailSayingTheExtraIsInAnotherRunIsReadSo;
//     extra_test.go).
//   - A failure's "from the fault to the violation" (failure.go) is a
//     selection, not a causal slice: the operator's steps from the plan's
//     first fault that shows in the run (a crash, a stale restart, a held
//     watch, an API fault), the workload's, and the built-in processes' on
//     the objects the violation's text names. A lag, latency or workers
//     fault shapes every step and has no step of its own to start from
//     (TestALagLatencyOrWorkersFaultHasNoStepOfItsOwn).
//   - "What this run never did" compares with the fault-free run of the
//     plan's seed only: a violation that the late or the other schedule's
//     run decided is told against that run, and an interleavings-agree
//     violation gets none
//     (TestOnlyTheFaultFreeRunOfThePlansSeedIsComparedForWhatThisRunNeverDid).
//   - The suspect's plan replays the suspect's run bit for bit, but its
//     own interleavings-agree verdict may blame the other schedule: when
//     the blame rule (verdict.ShowsTheBug) does not tell, the plan's own run
//     is taken for the faulted run, and a plan with no fault ends as its
//     own schedule does, so the other is named (reference/reference.go's
//     agree; TestInterleavingsAgreeDrawsAndReplaysTheSuspect,
//     TestAFaultlessPlanBlamingItsOwnScheduleIsItsOwnSuspect).
//   - Seed objects of two kinds of one name (in two API groups) with the
//     same namespace and name keep their indexes in a printed plan: the name
//     form does not carry the group
//     (TestSeedObjectsOfOneKindNameInTwoGroupsKeepTheirIndexes). operatortest.Replay (the catalogue's
//     and ctrlsim replay's path) runs a plan as given: indexes only.
package failure
