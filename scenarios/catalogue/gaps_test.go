package catalogue_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// An exploration reads the clock it is given twice, at its start and end,
// and its Wall is the difference: a slow clock, a slow exploration.
func TestAnExplorationsWallTimeIsTheCallersClock(t *testing.T) {
	reads := 0
	clock := func() time.Time {
		reads++
		return time.Unix(0, 0).Add(time.Duration(reads) * time.Hour)
	}
	r := canary.OnOperatortest().Explore(variant.Fixed, 1, 1, clock)
	if reads != 2 || r.Wall != time.Hour {
		t.Errorf("%d reads of the caller's clock, Wall %v; want 2 reads and the hour between them", reads, r.Wall)
	}
}

// Pages link to docs/ two levels up, wherever the catalogue is written.
func TestReportLinksAssumeTheCatalogueIsAChildOfTheRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deep", "elsewhere")
	e := canary.OnOperatortest()
	e.SeedFile = "canary.txt"
	if _, err := catalogue.WriteReports(dir, []*catalogue.Entry{e}, catalogue.ReportOptions{Checks: 1, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, catalogue.PageFile(e.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "](../../docs/SEEDS.md)") {
		t.Errorf("the page links SEEDS.md as %q, want ../../docs/SEEDS.md", string(page))
	}
}

func TestAResultCountsNoAPIOpsReconcilesOrVirtualTime(t *testing.T) {
	rt := reflect.TypeFor[catalogue.Result]()
	for i := range rt.NumField() {
		name := strings.ToLower(rt.Field(i).Name)
		for _, figure := range []string{"api", "reconcile", "virtual"} {
			if strings.Contains(name, figure) {
				t.Errorf("Result has %s, want no %s figure", rt.Field(i).Name, figure)
			}
		}
	}
}
