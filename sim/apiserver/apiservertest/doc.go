// Package apiservertest provides test doubles for code that runs against the
// apiserver model: Widget, a small custom resource with a spec and a status
// subresource, and a scheme with client-go's types and Widget.
//
// # Known gaps
//
// Widget's deep copy is written by hand (no controller-gen); it copies every field
// the type has and must be kept in step when fields are added.
package apiservertest
