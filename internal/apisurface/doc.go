// Command apisurface records and checks ctrlsim's public API surface, in the
// manner of the Go project's api/*.txt: one line for each exported name of
// the packages an adopter's test imports (Faces), written to api/ctrlsim.txt
// and checked in. A line says what a user's code may write against a name
// (a function's signature, a type's kind, each exported field and method,
// a constant's or variable's type), with every alias resolved to what it
// names, so that moving a name behind an alias (a deprecated
// operatortest.ClientGo = clientgo.Env) keeps its lines.
//
//	go run ./internal/apisurface          # check: fails on a recorded line that is gone
//	go run ./internal/apisurface -write   # record the surface (make api)
//
// The check fails on a recorded line that is gone (a removed or changed
// name breaks a user's test: keep a deprecated alias, and say so in
// docs/CHANGELOG.md) and on a line that is not recorded (record it with
// -write, so that the next removal is caught). TestTheRecordedSurfaceIsCurrent
// runs the check in make check and make test.
//
// # Known gaps
//
//   - Only removals and additions of lines are seen: a signature that
//     changes to one every caller still compiles with (a parameter that
//     becomes an interface the old type implements) is reported as removed
//     (TestAChangedSignatureIsARemovalEvenWhenCallersStillCompile).
//   - Methods and fields promoted from types outside the module (an embedded
//     metav1.ObjectMeta's) are not recorded: they are client-go's surface,
//     not ctrlsim's (TestPromotedMethodsFromOutsideTheModuleAreNotRecorded).
package main
