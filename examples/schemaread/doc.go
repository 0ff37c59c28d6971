// Package schemaread is the smallest operator that reads a built-in kind's
// schema from the cluster's OpenAPI v3 document, as a resource orchestrator
// does to type-check the expressions of its resource graph: it resolves the
// kind a labelled ConfigMap names through the discovery client
// (k8s.io/apiserver's CEL ClientDiscoveryResolver over
// discovery.NewDiscoveryClientForConfigAndClient(mgr.GetConfig(),
// mgr.GetHTTPClient()): OpenAPIV3().Paths(), then the group version's
// Schema) and writes the type of the field it names on the ConfigMap.
// Before the OpenAPI documents were served they answered 404 and such an operator failed in
// its fault-free run ("failed to get schema for resource deployment").
//
// # Known gaps
//
//   - A path goes down through objects' properties only, not into a list's
//     items or a map's values: "spec.template.spec.containers" is an
//     array, and a field of a container is "unknown"
//     (TestAPathGoesThroughObjectsOnlyNotIntoAListsItems).
package schemaread
