package pipeline_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/scenarios/pipeline"
)

// TestEntries checks the expectations of this package's catalogue entries
// on operatortest (catalogue.TestEntries: the catalogue's budget; skipped
// under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, pipeline.OnOperatortest()) }
