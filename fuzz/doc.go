// Package fuzz holds the `go test -fuzz` targets: one per seed scenario, over
// the catalogue entry's operatortest test (operatortest/search.FuzzTarget: fuzz
// bytes decode into a plan of the entry's workload and fault profile; the
// variants expected to hold are judged by the generic oracles and the
// entry's properties), and one for the plan parser. `make test` replays the
// seed corpus (operatortest/search.FuzzSeeds, long enough to draw a plan from);
// `make fuzz` fuzzes each target for a bounded time.
//
// # Known gaps
//
//   - Entries whose every variant is expected to be caught have nothing to
//     fuzz (fuzzEntry refuses them)
//     (TestAnEntryCaughtInEveryVariantHasNothingToFuzz).
//   - Fuzzing explores plans, not the world: the initial objects of a
//     scenario are fixed (TestAFuzzInputDecodesToAPlanNotAWorld).
package fuzz
