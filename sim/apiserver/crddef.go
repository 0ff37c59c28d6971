package apiserver

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// CRDDefinition is the CustomResourceDefinition that serves a custom kind
// (its whole definition when it was installed from one, else the definition
// of its one version), as package restapi builds the kind's OpenAPI
// documents from it; nil for a built-in kind. The caller must not modify it.
func (k *Kind) CRDDefinition() *apiextensionsv1.CustomResourceDefinition {
	if !k.Custom {
		return nil
	}
	if d := k.crd.Definition; d != nil {
		return d
	}
	return crdDefinitionOf(k.crd)
}
