// Package scoped is a small namespace-scoped operator, tested end to end with
// package operatortest through its own manager.Options: its main builds them
// from WATCH_NAMESPACE (Options), so the manager caches that namespace only
// (Cache.DefaultNamespaces), as operators installed per team do.
//
// For each ConfigMap labelled scoped.ctrlsim.dev/app in the watched namespace
// it copies the platform team's Secret platform/registry-credentials into that
// namespace, owned by the ConfigMap (a pull secret the app's pods need).
//
// The buggy reconciler reads the platform Secret through the manager's client,
// as it always did when the operator watched the whole cluster: once scoped,
// that read goes to a cache that holds one namespace and fails for ever
// ("unable to get: platform/registry-credentials because of unknown namespace
// for the cache"), and no app gets its Secret. Its cluster-wide test passes.
// The fixed one reads the Secret with mgr.GetAPIReader() (it could also list
// Secrets in Client.Cache.DisableFor, or add platform to DefaultNamespaces).
// The generic no-error-at-rest oracle finds the bug in the first plan.
//
// # Known gaps
//
//   - It is a teaching example: a change of the platform Secret is not
//     copied again (nothing watches the platform namespace)
//     (TestAChangeOfThePlatformSecretIsNotCopiedAgain).
package scoped
