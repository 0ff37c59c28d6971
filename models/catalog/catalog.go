package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Bundle is one version of a package: what its image holds (the objects) and
// where it sits in the upgrade graph.
type Bundle struct {
	Package string
	Name    string // e.g. "op.v2.0.0"
	Version string // semver, e.g. "2.0.0"
	Image   string
	// UpgradesFrom are the versions this bundle upgrades from directly (its
	// replaces and skips edges).
	UpgradesFrom []string
	// PublishedAt is when the bundle appears in the catalog; the zero time means
	// from the start.
	PublishedAt time.Time
	Objects     []client.Object
}

// Catalog is a bundle catalog (what catalogd serves from a ClusterCatalog's
// image) whose content changes over time: a bundle is visible from its
// PublishedAt on.
type Catalog struct {
	clock   clock.PassiveClock
	bundles []Bundle
}

// New is a catalog with bundles, on clk.
func New(clk clock.PassiveClock, bundles ...Bundle) *Catalog {
	c := &Catalog{clock: clk}
	for _, b := range bundles {
		c.Add(b)
	}
	return c
}

// Add adds a bundle, visible from its PublishedAt.
func (c *Catalog) Add(b Bundle) {
	c.bundles = append(c.bundles, b)
}

// Publish adds a bundle visible from now on.
func (c *Catalog) Publish(b Bundle) {
	b.PublishedAt = c.clock.Now()
	c.Add(b)
}

// Bundles are the bundles of a package published by now, lowest version first.
func (c *Catalog) Bundles(pkg string) []Bundle {
	now := c.clock.Now()
	var out []Bundle
	for _, b := range c.bundles {
		if b.Package == pkg && !b.PublishedAt.After(now) {
			out = append(out, b)
		}
	}
	slices.SortStableFunc(out, func(a, b Bundle) int { return CompareVersions(a.Version, b.Version) })
	return out
}

// Bundle is the published bundle of a package at a version.
func (c *Catalog) Bundle(pkg, version string) (Bundle, bool) {
	for _, b := range c.Bundles(pkg) {
		if b.Version == version {
			return b, true
		}
	}
	return Bundle{}, false
}

// Policy is the upgrade constraint policy of a ClusterExtension.
type Policy string

// The policies of operator-controller.
const (
	// CatalogProvided: from an installed version, only the installed bundle and
	// its successors (bundles that upgrade from it) are candidates.
	CatalogProvided Policy = "CatalogProvided"
	// SelfCertified: any version is a candidate.
	SelfCertified Policy = "SelfCertified"
)

// Request is what a resolution asks for.
type Request struct {
	Package string
	// VersionRange is empty (any), or space-separated comparisons that must all
	// hold: "1.2.0", "=1.2.0", ">=1.0.0 <3.0.0".
	VersionRange string
	Policy       Policy
	// Installed is the installed version, or "" for a fresh install.
	Installed string
}

// Resolve picks the highest published version that satisfies the request
// (operator-controller internal/operator-controller/resolve/catalog.go, reduced
// to one catalog, no channels and no deprecations).
func (c *Catalog) Resolve(req Request) (Bundle, error) {
	match, err := ParseRange(req.VersionRange)
	if err != nil {
		return Bundle{}, err
	}
	var best *Bundle
	for _, b := range c.Bundles(req.Package) {
		if !match(b.Version) {
			continue
		}
		if req.Installed != "" && req.Policy != SelfCertified && b.Version != req.Installed && !slices.Contains(b.UpgradesFrom, req.Installed) {
			continue
		}
		best = &b
	}
	if best != nil {
		return *best, nil
	}
	prefix := ""
	if req.Installed != "" {
		prefix = fmt.Sprintf("error upgrading from currently installed version %q: ", req.Installed)
	}
	if req.VersionRange != "" {
		return Bundle{}, fmt.Errorf("%sno bundles found for package %q matching version %q", prefix, req.Package, req.VersionRange)
	}
	return Bundle{}, fmt.Errorf("%sno bundles found for package %q", prefix, req.Package)
}

// ParseRange parses a version range into a predicate.
func ParseRange(r string) (func(version string) bool, error) {
	type cond struct {
		op, v string
	}
	var conds []cond
	for f := range strings.FieldsSeq(r) {
		op := f[:len(f)-len(strings.TrimLeft(f, "<>=!"))]
		v := f[len(op):]
		if _, err := parse(v); err != nil {
			return nil, fmt.Errorf("invalid version range %q: %w", r, err)
		}
		switch op {
		case "", "=", "==", "!=", "<", "<=", ">", ">=":
		default:
			return nil, fmt.Errorf("invalid version range %q: unknown operator %q", r, op)
		}
		conds = append(conds, cond{op, v})
	}
	return func(version string) bool {
		for _, c := range conds {
			if !holds(c.op, CompareVersions(version, c.v)) {
				return false
			}
		}
		return true
	}, nil
}

func holds(op string, d int) bool {
	switch op {
	case "", "=", "==":
		return d == 0
	case "!=":
		return d != 0
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	default: // ">="
		return d >= 0
	}
}

// CompareVersions compares two MAJOR.MINOR.PATCH versions numerically (as
// strings when either does not parse).
func CompareVersions(a, b string) int {
	pa, errA := parse(a)
	pb, errB := parse(b)
	if errA != nil || errB != nil {
		return cmp.Compare(a, b)
	}
	return slices.Compare(pa, pb)
}

func parse(v string) ([]int, error) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
		}
		out[i] = n
	}
	return out, nil
}
