// Package password is the smallest operator that generates a password: a
// User gets a Secret <name>-credentials, owned by it, with spec.username and
// a password drawn from crypto/rand when the Secret is created, and never
// changed after (the user's clients have it). A change of username is
// written into the Secret; its password stays.
//
// The pattern's trap for a test harness: the password is random, different
// in every run. operatortest seeds the draws from the plan's seed, so a run
// repeats, but two schedules of one workload may draw a different number of
// values before the Secret that stays (a create that raced the user's
// re-creation of the User draws once more); operatortest learns the fields
// that differ with the randomness alone from a run with other draws, and
// compares the password nowhere (operatortest's random.go).
//
// The buggy twin (Buggy) draws a new password at every reconcile and writes
// it: every write wakes the operator again (it watches its Secrets), so it
// rewrites the password for ever and clients never keep one.
//
// # Known gaps
//
//   - No rotation: a password changes only when its Secret is re-created
//     (examples/patterns.TestPasswordIsWrittenOnlyWhenItsSecretIsCreated).
package password
