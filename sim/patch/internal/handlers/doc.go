// Package handlers holds the one type whose Go name shows up in a real kube-apiserver patch error.
//
// When fieldValidation is Warn (the default) or Strict, the apiserver first decodes a JSON patch body into
// []jsonPatchOp, a type of its package k8s.io/apiserver/pkg/endpoints/handlers, and a body that is not an
// array fails with "json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp". This
// package and type have the same names, so the message is the same byte for byte.
//
// # Known gaps
//
// None of its own: it decodes JSON patch operations exactly as the real handler does before applying them
// (sigs.k8s.io/json UnmarshalStrict); everything else about patches is in the parent package.
package handlers
