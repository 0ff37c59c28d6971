package canary_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// TestEntries checks the expectations of the canary's catalogue entry
// (catalogue.TestEntries: the catalogue's budget; skipped under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, []*catalogue.Entry{canary.OnOperatortest()}) }
