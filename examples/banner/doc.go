// Package banner is a small operator whose API has two versions, as an
// operator's API has once it has grown: users (and their manifests) still
// write v1alpha1, the controller works on v1, the stored version, and a
// conversion webhook the operator serves (ctrl.NewWebhookManagedBy for the
// v1 Hub and its v1alpha1 Convertible, kubebuilder's layout) converts
// between them. The apiserver model serves both versions from one store and
// calls the webhook on every read, write and watch event in v1alpha1, as
// kube-apiserver does.
//
// For each Banner it keeps a ConfigMap <name>-banner holding the Banner's
// lines (v1 spec.lines; v1alpha1 spec.text, the lines joined by newlines)
// and records status.observedGeneration. The test's seed Banner is
// written in v1alpha1, and its property reads Banners in v1alpha1 too.
//
// # Known gaps
//
//   - A teaching example: no Events, no conditions; the webhook has no
//     failure of its own (while the operator is down its conversions fail,
//     and with them the user's v1alpha1 requests, as on a real cluster)
//     (TestTheOperatorWritesNoEventAndNoCondition).
package banner
