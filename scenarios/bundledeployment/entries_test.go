package bundledeployment_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/bundledeployment"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// TestEntries checks the expectations of this package's catalogue entries
// on operatortest (catalogue.TestEntries: the catalogue's budget; skipped
// under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, bundledeployment.OnOperatortest()) }
