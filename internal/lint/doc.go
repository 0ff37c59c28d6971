// Package lint holds the project's rules as a Go test (lint_test.go), after
// cockroachdb/pebble's internal/lint. `go test ./internal/lint/` walks the
// repository from the module root and prints one line per violation:
// file:line, the rule, and what to use instead.
//
// Rules:
//   - wall-clock: non-test files under sim/, models/ and controllers/ (all of
//     which run inside the simulator's scheduler) do not call time.Now, Since,
//     Until, Sleep, After, AfterFunc, NewTimer, NewTicker or Tick (nor take
//     them as values, nor dot-import "time"); time comes from the virtual
//     clock, sim/clock (in models/ and controllers/, an injected
//     k8s.io/utils/clock, which is the virtual clock in a world).
//   - global-rand: non-test files under sim/, models/ and controllers/ do not
//     import "math/rand" and use no package-level function of "math/rand/v2" other than New, NewPCG and
//     NewChaCha8 (types such as rand.Rand are fine); randomness comes from
//     sim/rng streams.
//   - go-statement: non-test files under sim/, models/ and controllers/
//     contain no `go` statement, except in sim/scheduler.
//   - Allowed exceptions: in models/ and controllers/ (never in sim/), a
//     violation of wall-clock, global-rand or go-statement is allowed by the
//     comment `// lint:allow <rule> <reason>` at the end of its line or alone
//     on the line before it (code that runs only against a real cluster, for
//     instance). There are none today.
//   - layering (docs/design.md "Layers"), for test and non-test files alike:
//     sim/ imports no project package outside sim/; models/ imports none of
//     sim/, controllers/, scenarios/, cmd/, fuzz/; controllers/ none of sim/,
//     scenarios/, cmd/, fuzz/; scenarios/ none of cmd/, fuzz/; internal/,
//     operatortest/, wallclock/ and kcm/ none of scenarios/, examples/, cmd/, fuzz/
//     (operatortest's test files may drive example operators).
//     Inside sim/ and operatortest/ the packages stand on floors, and the
//     order is stated once, in the ```floors blocks of docs/design.md
//     ("Floors inside sim/ and operatortest/"), which the lint parses: a
//     package imports only packages on floors below its own (none on its
//     own floor). An import against the order fails with one line naming
//     the file, the import, both floors and what to do; a package of either
//     tree on no floor fails once ("sim/foo is on no floor of
//     docs/design.md's order"), and so does a name on a floor that is no
//     package. In-package test files are held to the order like the
//     package; external test packages (package x_test) are not, since Go
//     builds them above every package and they drive the packages above
//     theirs (kubeclient's tests run a process). sim itself, a doc.go only,
//     is the map and stands on no floor: its bulleted list names every
//     package below sim/ ("//   - name: ..."), bottom up in the floors'
//     order.
//   - map-order: in non-test files under sim/, a `for ... range` over a map
//     (or over maps.Keys, maps.Values or maps.All) needs the comment
//     `// lint:order-independent <reason>` on the line before it or at the
//     end of the for line itself.
//   - operatortest/story (the pictures and the run inspector, whose bytes
//     the catalogue checks in) is held to the kernel's four rules above,
//     with no exceptions, as if it were under sim/.
//   - known-gaps: every package directory below sim/ has a doc.go that
//     contains the words "Known gaps".
//   - gap-tests (gaptests_test.go): in every package with a doc.go, each
//     item of its "# Known gaps" list names the test that shows the gap,
//     by its function name ("(TestEveryProcessReadsTheSameNow)", "TestX
//     shows it"), or as pkg/path.TestX for a test of another package, by
//     its directory from the module root ("sim/process.TestX",
//     "wallclock.TestX"); every test an item names is a `func TestX(`
//     of a _test.go file of that package. The test asserts the behaviour
//     the gap describes, so a change that closes the gap breaks it, and the
//     item goes with it. A doc.go with no "# Known gaps" section breaks
//     the rule too.
//   - tracker-issue (tracker_test.go): no Go comment, and no markdown
//     document outside reports/, cites this repository's tracker by number
//     ("issue 31", "Issue #27"), which a reader of a clone cannot open: say
//     what is meant in words. An upstream citation names its project just
//     before the number, and is left alone: a possessive other than
//     ctrlsim's ("pravega/zookeeper-operator's issue 314", the name may
//     end the line before), or a name with a slash or a hyphen
//     ("operator-controller issue #994"); so is "issue N" inside a
//     quotation on its line (upstream's own words quoted). A "#N" alone
//     (operator-framework/operator-controller#1776, "PR #214") is not an
//     "issue N" and is not checked.
//
// The sim/, models/ and controllers/ packages are type-checked
// (golang.org/x/tools/go/packages, with dependencies from export data), so
// map ranges are found by type and a
// local variable named time or rand does not confuse the call rules.
//
// Known gaps:
//   - map-order covers sim/ only: a map range in models/ or controllers/
//     (which run in the scheduler too) is not flagged
//     (TestMapOrderIsCheckedUnderSimOnly).
//   - Where type checking fails (a package that does not compile, or a file
//     excluded by build constraints), map-order falls back to syntax and only
//     sees map literals, make(map...) and maps.Keys/Values/All; wall-clock and
//     global-rand then go by the import name alone
//     (TestMapOrderRuleFallsBackToSyntax).
//   - A range over a value whose type is a type parameter with a map core
//     type is not flagged; nor is map order that leaks without a range
//     statement (e.g. fmt printing a map is sorted and fine, but
//     reflect.Value.MapKeys or a map iterator passed to a function is not
//     seen) (TestAMapIsSeenOnlyAsTheMapTypeOfARangeStatement).
//   - Forbidden calls reached through another package (a helper outside
//     sim/ that calls time.Now) are not followed; layering keeps sim/ from
//     importing project packages, but third-party code is trusted
//     (TestWallClockCallsAreSeenInTheFileOnly).
//   - tracker-issue reads only comments and documents: a string that cites
//     the tracker (one printed into reports/bench.md, say) is not seen, nor
//     is reports/, generated from such strings. A hyphenated word before
//     "issue N" passes for a project's name
//     (TestTrackerCitationsInStringsOrAfterAHyphenatedWordPass). A citation
//     whose number wraps onto the next line ("issue" ending one, "53"
//     starting the next) is not seen
//     (TestATrackerCitationWrappedBeforeItsNumberPasses).
//   - The root package sim (sim/*.go) is not required to have a doc.go;
//     the rule covers the directories below it
//     (TestTheRootPackageSimNeedsNoDocGo).
package lint
