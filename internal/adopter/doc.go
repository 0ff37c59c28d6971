// Package adopter holds tests only (and staging.go, for go mod tidy): an
// operator's own repository adopting ctrlsim as any Go library, as a new
// user would. Its test
// (adopter_test.go) writes a kubebuilder-style operator module into a
// temporary directory (testdata/operator: its own module path, api/v1 types
// with hand-written DeepCopy, a CRD manifest under config/crd/bases, a
// reconciler under internal/controller with SetupWithManager, cmd/main.go's
// wiring, config/samples, a ginkgo suite, and its own operatortest tests
// beside the suite), whose go.mod requires github.com/ctrlsim/ctrlsim with
// one replace directive to this checkout (what `go get` gives once ctrlsim
// is published) and ctrlsim's command as a tool. It then runs, in that
// module, with GOWORK=off and the user's GOFLAGS overridden (so that a
// go.work in a parent directory or a -mod flag cannot change the outcome):
//
//   - go mod tidy: no other replace directive is needed (ctrlsim's go.mod
//     requires every module at a real version), and the operator builds
//     with ctrlsim's controller-runtime and k8s.io versions;
//   - go doc github.com/ctrlsim/ctrlsim/operatortest.Workload: the type's
//     fields;
//   - go tool ctrlsim scaffold: its launcher builds the command in the
//     operator's module (into an empty cache directory of its own) and says
//     so before the command runs; the command writes
//     internal/controller/ctrlsim_test.go from the project's scheme, CRDs,
//     main.go wiring and samples, and refuses to overwrite it, the second
//     time with no word of building (its binary is current);
//   - go vet ./... and go test ./...: the ginkgo suite passes, the operator's
//     own test of its planted bug (a crash between two creates) passes with
//     Options.Expect (the bug is caught and its plan saved), the correct
//     operator holds at a small budget, and the scaffolded test runs as
//     written and holds;
//   - the replay line the failure printed (the saved plan's `# replay:`
//     comment), pasted at the module's root: it names the package by its
//     import path and replays the same trace hash.
//
// go doc lists every module of the module graph, and k8s.io/kubernetes
// requires its staging modules at v0.0.0 (its replace directives, like
// ctrlsim's, apply to its own build only): ctrlsim's go.mod requires each
// at its release, the eight no package of ctrlsim's build comes from too,
// kept from go mod tidy by staging.go (a file under a build tag no build
// sets, in this package that no one imports).
// TestCtrlsimRequiresWhatKubernetesRequiresAtV000 checks ctrlsim's module
// graph for every such module (under -short too), and
// TestGoDocWorksInAModuleThatRequiresCtrlsim tidies a module with one test
// importing operatortest and runs go list -m all and go doc there (a
// second, with a warm module cache).
//
// Another test (TestAModuleWithTheToolLineAloneRunsTheTool) is a new
// user's first step: a module with the tool line and nothing of ctrlsim
// imported, go mod tidy, then go tool ctrlsim list, which builds and runs
// the command (its launcher imports none of the command's modules: tidy
// keeps them only through cmd/ctrlsim/tidy.go).
//
// GOCACHE and GOMODCACHE are the environment's, so that a warm cache makes
// it quick; under -short it is skipped (make check downloads nothing). With
// a warm build cache the first go tool ctrlsim links the command rather
// than compiles it: the launcher's counts of packages compiled are
// cmd/ctrlsim's tests, with a fake go command.
//
// Known gaps:
//   - The operator depends on this checkout by a replace directive, not on a
//     published version: what the module proxy would serve (the tagged
//     module's go.mod) is not exercised
//     (TestTheOperatorRequiresThisCheckoutByAReplace).
//   - Its go.sum starts as a copy of ctrlsim's, so that no checksum is looked
//     up for a module ctrlsim already verified; a new user's `go get` looks
//     them up in the checksum database (TestTheOperatorsGoSumStartsAsCtrlsims).
//   - One operator shape is tried (kubebuilder's go/v4 layout, one group,
//     one controller); scaffold's other shapes are cmd/ctrlsim's unit tests
//     (TestOneOperatorShapeIsTried).
package adopter
