// Package catalog is a model of a bundle catalog as operator-controller sees it
// (catalogd serving a ClusterCatalog's content; operator-controller's resolver in
// internal/operator-controller/resolve): bundles of a package with versions,
// upgrade edges, their content (objects) and a publish time, so that the catalog
// can drift during a run — seed 2's "v3 appears after the crash".
//
// Resolve picks the highest published version in the requested range; with an
// installed version and the CatalogProvided policy only the installed bundle and
// the bundles that upgrade from it are candidates, with SelfCertified any version
// is. Time comes from an injected clock.PassiveClock.
//
// # Known gaps
//
//   - One catalog, no channels, no deprecations, no catalog priorities or
//     selectors, no skipRange expressions (upgrade edges are explicit versions),
//     no pre-release or build metadata in versions (MAJOR.MINOR.PATCH only)
//     (TestACatalogHasNoChannelsAndVersionsAreMajorMinorPatchOnly).
//   - The catalog lives in memory, outside the API server, as catalogd's HTTP
//     service does; a scenario that wants controllers to react to a publication
//     must also change a cluster object they watch (a ClusterCatalog)
//     (TestAPublicationIsSeenWithNoClusterObjectChanged).
//   - Version ranges are space-separated comparisons (AND); Masterminds'
//     ranges with "||", "~", "^" or wildcards are not parsed
//     (TestMastermindsRangeSyntaxIsNotParsed).
package catalog
