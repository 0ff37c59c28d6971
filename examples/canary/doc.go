// Package canary is the example of docs/writing-tests.md ("Below
// operatortest") of testing your own reconciler with ctrlsim: a property over
// plans of faults, checked with rapid, against the deliberately buggy canary
// controller (controllers/canary). The tests show that
// the harness catches it and shrinks the failing plan to one fault.
//
// # Known gaps
//
// The example's rapid test fails by design and is skipped unless CTRLSIM_CANARY=1.
package canary
