// Package fuzz holds the `go test -fuzz` targets: one per catalogue entry (fuzz
// bytes decode into a plan of the entry's fault profile; the properties of the
// variants expected to hold are checked) and one for the plan parser. `make test`
// replays the seed corpus; `make fuzz` fuzzes each target for a bounded time.
//
// # Known gaps
//
//   - Entries whose every variant is expected to be caught have nothing to fuzz.
//   - Fuzzing explores plans, not the world: the initial objects of a scenario are
//     fixed.
package fuzz
