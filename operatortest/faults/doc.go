// Package faults is a test's fault profile and where its faults are aimed:
// the Profile a test gives (Options.Faults: the classes drawn, the operator
// processes they fall on, the kinds whose caches lag or are held, the
// objects whose changes aimed faults aim at, the API errors drawn and the
// author's own API faults), the plan space narrowed to it (World.Narrow),
// the profile refused when the world can never draw it (World.Check: a
// class with no material, an API fault template whose verb, resource or
// process matches no request), and the API errors drawn by default, aimed
// at the operator's writes of a fault-free run (World.APIFaultsOf, aim.go).
//
// A World is package world's view of itself (world.World.FaultWorld):
// this package knows nothing of how a world is built or run; world.Build
// narrows and checks the profile, and package reference aims the faults
// at its reference runs (ReconcileWrites, ProcessWrite, Aims).
//
// # Known gaps
//
//   - The API errors drawn by default fail writes only, one request a
//     plan, never a read, a watch or a list (an author's template can);
//     no 503 is drawn, and no 409 on its own: a real conflict is another
//     client's write, whose watch event reaches the operator, and the
//     apiserver model's injected 409 comes with no write (an operator that
//     drops a conflict and waits for that event would be failed falsely);
//     a 409 is met only as the retry of a write whose response was lost,
//     or from an author's template
//     (TestTheAPIErrorsDrawnAreTheOperatorsOwnWritesOfTheFaultFreeRun). The 429's Retry-After is in the
//     Status's details only: package restapi sends no Retry-After header,
//     so client-go's own retry of a 429 is not exercised (sim/restapi's
//     Known gaps).
//   - An API fault template's resource is checked against the scheme's
//     kinds and the CRDs given: a kind whose CRD the operator installs at
//     run time, with no Go type, is refused. Workers faults are never
//     drawn (no controller is offered to the generator; a plan's text can
//     name one): plan.Workers in Profile.Classes is refused
//     (TestARunTimeCRDsResourceAndTheWorkersClassAreRefused).
//   - A trace step names its object's kind without its group, and an
//     apiserver.Fault names a resource without one: a write of a kind that
//     several groups serve is aimed at by the plural of the group the world
//     collects (else the core group's), and the fault drawn matches that
//     resource's requests in every group
//     (TestAnAPIErrorAimedAtAKindOfTwoGroupsNamesNoGroup).
package faults
