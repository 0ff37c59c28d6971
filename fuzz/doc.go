// Package fuzz holds the `go test -fuzz` targets: one per catalogue entry still
// on the kernel's own engine (fuzz
// bytes decode into a plan of the entry's fault profile; the properties of the
// variants expected to hold are checked) and one for the plan parser. `make test`
// replays the seed corpus; `make fuzz` fuzzes each target for a bounded time.
//
// # Known gaps
//
//   - Entries whose every variant is expected to be caught have nothing to fuzz.
//   - Entries ported to operatortest (catalogue.Entry.Test) have no
//     target: their plans come from operatortest's generator, not from a
//     plan.Space that fuzz bytes decode into (fuzzEntry refuses them).
//   - Fuzzing explores plans, not the world: the initial objects of a scenario are
//     fixed.
package fuzz
