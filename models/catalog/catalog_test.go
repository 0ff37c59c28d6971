package catalog_test

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrlsim/ctrlsim/models/catalog"
)

var epoch = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)

func bundle(v string, from ...string) catalog.Bundle {
	return catalog.Bundle{Package: "op", Name: "op.v" + v, Version: v, UpgradesFrom: from}
}

// Seed 2 (001): v1 and v2 are in the catalog; v3 (from v1 and v2) is published
// after the crash. Resolution sees it only from then on.
func TestCatalogDrift(t *testing.T) {
	clk := testingclock.NewFakeClock(epoch)
	v3 := bundle("3.0.0", "1.0.0", "2.0.0")
	v3.PublishedAt = epoch.Add(time.Minute)
	c := catalog.New(clk, bundle("2.0.0", "1.0.0"), bundle("1.0.0"), v3)
	req := catalog.Request{Package: "op", Installed: "1.0.0", Policy: catalog.CatalogProvided}
	if b, err := c.Resolve(req); err != nil || b.Version != "2.0.0" {
		t.Fatalf("before v3 is published: %v %v, want 2.0.0", b.Version, err)
	}
	clk.Step(time.Minute)
	if b, err := c.Resolve(req); err != nil || b.Version != "3.0.0" {
		t.Fatalf("once v3 is published: %v %v, want 3.0.0", b.Version, err)
	}
	if got := len(c.Bundles("op")); got != 3 {
		t.Errorf("%d bundles, want 3", got)
	}
}

// CatalogProvided: only the installed bundle and its successors are candidates;
// SelfCertified: any bundle in range.
func TestResolveFollowsUpgradeEdges(t *testing.T) {
	clk := testingclock.NewFakeClock(epoch)
	c := catalog.New(clk, bundle("1.0.0"), bundle("2.0.0", "1.0.0"), bundle("3.0.0", "1.0.0"))
	for _, tc := range []struct {
		req  catalog.Request
		want string
		err  string
	}{
		{req: catalog.Request{Package: "op"}, want: "3.0.0"},
		{req: catalog.Request{Package: "op", VersionRange: "<3.0.0"}, want: "2.0.0"},
		{req: catalog.Request{Package: "op", VersionRange: "1.0.0"}, want: "1.0.0"},
		{req: catalog.Request{Package: "op", Installed: "2.0.0", Policy: catalog.CatalogProvided}, want: "2.0.0"},
		{req: catalog.Request{Package: "op", Installed: "2.0.0", Policy: catalog.SelfCertified}, want: "3.0.0"},
		{req: catalog.Request{Package: "op", Installed: "2.0.0", VersionRange: ">=3.0.0", Policy: catalog.CatalogProvided},
			err: `error upgrading from currently installed version "2.0.0": no bundles found for package "op" matching version ">=3.0.0"`},
		{req: catalog.Request{Package: "other"}, err: `no bundles found for package "other"`},
		{req: catalog.Request{Package: "op", VersionRange: "~1"}, err: `invalid version range "~1": version "~1" is not MAJOR.MINOR.PATCH`},
	} {
		b, err := c.Resolve(tc.req)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%+v: error %v, want %s", tc.req, err, tc.err)
			}
			continue
		}
		if err != nil || b.Version != tc.want {
			t.Errorf("%+v: %s %v, want %s", tc.req, b.Version, err, tc.want)
		}
	}
}

func TestCompareVersionsIsNumeric(t *testing.T) {
	if catalog.CompareVersions("10.0.0", "9.0.0") <= 0 || catalog.CompareVersions("1.2.3", "1.2.3") != 0 {
		t.Error("versions compare as strings")
	}
}
