// Package dynread is the smallest operator that reads through the dynamic
// client: it counts the objects of a resource named at run time (in an
// inventory ConfigMap) with dynamic.NewForConfigAndClient(mgr.GetConfig(),
// mgr.GetHTTPClient()) and writes the count on the ConfigMap. Its requests are
// its process's own calls, as its ServiceAccount: the variant that lists
// across all namespaces, which its Role does not allow, is caught.
//
// # Known gaps
//
//   - The operator watches its inventories, not the objects it counts: a
//     Secret made after the count is not counted until the inventory
//     changes (TestACountIsMadeWhenItsInventoryChangesNotWhenTheObjectsDo).
package dynread
