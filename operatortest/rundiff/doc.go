// Package rundiff is where two runs of one plan differ: the exploration's
// check that a run is a function of its plan (package search's
// determinism.go), and a finding's replay compared with the run that found
// it.
//
// A run is a function of its plan, up to what the oracles' equivalence
// ignores: the order of a list its schema keys (a Service's ports), the
// fields Options.Nondeterministic declares, the resourceVersions,
// generations and managedFields that a write more or less shifts, and
// what the oracles name by token (uids, generated names, times). Two
// runs of one plan are compared as histories of what each object held,
// object by object (each write that changed only what the equivalence
// ignores left out; how two objects' changes interleave is the
// schedule's, which a write more or less shifts): where they first differ
// (Diverge) is an object whose content one run wrote and the other did
// not, and its fields are what differs, named as Options.Nondeterministic
// names them (Divergence.Declare). Origin says where a difference starts:
// the first write of either run, in commit order, that differs as stored
// (a built-in controller's write that copied an operator's starts at the
// operator's). Steps says where two traces first
// differ, and whose step it is.
//
// # Known gaps
//
//   - The order in which two objects' changes interleave is never
//     compared: an operator whose writes to different objects come in a
//     different order from run to run, each to the same content, shows no
//     divergence (TestTwoObjectsWrittenInTheOtherOrderShowNoDivergence).
//   - Only the first divergence is told: a run that differs in several
//     objects names the one whose changes come first, and the others show
//     once it is declared (search learns up to four from one replay;
//     TestOnlyTheFirstDivergingObjectIsTold).
//   - A list whose items differ and are reordered at once is told as the
//     fields that differ, not as its order; a field through a list is
//     named as the field of every item
//     (TestAListReorderedAndChangedAtOnceIsToldAsItsFields).
//   - Steps compares the traces step by step: a step inserted early
//     (one more retry) makes every later step differ, and the first one is
//     all it names (TestStepsNamesOnlyTheFirstStepAfterAnInsertedOne).
package rundiff
