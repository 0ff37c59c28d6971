// Package long tells a test whether to run its long form.
//
// make test runs every test at a budget that fits CI's: one explorer seed
// where a claim is a median over five, a correct operator over the default
// budget where its claim is 1,000 plans, a property test at a third of its
// draw. make long sets CTRLSIM_LONG=1, and those tests then run their whole
// claim (docs/command.md lists what each runs longer). Enabled is the one
// rule: a test asks it, never the variable.
//
// CTRLSIM_TWIN=1000, which named the correct operators' 1,000-plan runs
// before make long, still means the same.
//
// # Known gaps
//
//   - Nothing runs the long forms in CI: a change that moves a median past
//     its bound, or breaks a 1,000-plan hold, is seen at the next make long
//     (TestEnabledFollowsTheVariables states only how the form is chosen).
package long
