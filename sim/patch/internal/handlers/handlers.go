package handlers

import kjson "sigs.k8s.io/json"

// jsonPatchOp mirrors the type of the same name in
// k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go.
type jsonPatchOp struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	From  string      `json:"from"`
	Value interface{} `json:"value"`
}

// StrictDecodeJSONPatch decodes a JSON patch body the way the apiserver's jsonPatcher does before applying
// it: strictErrs are unknown or duplicate fields in the operations, err means the body is not a list of
// operations.
func StrictDecodeJSONPatch(data []byte) (strictErrs []error, err error) {
	var ops []jsonPatchOp
	return kjson.UnmarshalStrict(data, &ops)
}
