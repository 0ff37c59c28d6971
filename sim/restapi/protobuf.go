package restapi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/munnerz/goautoneg"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Protobuf answers. kube-apiserver answers in the first media type of the
// request's Accept it can serve (negotiation.NegotiateOutputMediaType):
// protobuf for the built-in kinds, their lists, Status and
// PartialObjectMetadata, JSON for a kind only a CRD defines. client-go's
// typed clients ask for protobuf first (kube-controller-manager's clientsets,
// and controller-runtime's clients and caches of built-in kinds: Accept
// "application/vnd.kubernetes.protobuf,application/json"), so the world
// answers them as a cluster does, and decodes what it answers as theirs do.

// accepted is the clause of a request's Accept header that kube-apiserver
// answers in (negotiation.NegotiateOutputMediaType): the first it serves,
// protobuf or JSON (a wildcard is JSON); nil where there is none (JSON too).
func accepted(accept string) *goautoneg.Accept {
	for _, c := range goautoneg.ParseAccept(accept) {
		switch c.Type + "/" + c.SubType {
		case runtime.ContentTypeProtobuf, runtime.ContentTypeJSON, "application/*", "*/*":
			return &c
		}
	}
	return nil
}

// prefersProtobuf reports whether a request is answered in protobuf: the
// clause of its Accept the server answers in is protobuf.
func prefersProtobuf(accept string) bool {
	if !strings.Contains(accept, runtime.ContentTypeProtobuf) {
		return false
	}
	c := accepted(accept)
	return c != nil && c.Type+"/"+c.SubType == runtime.ContentTypeProtobuf
}

// asMetadata reports whether a request is answered with PartialObjectMetadata
// (the metadata client's, and so metadata informers'): the clause of its
// Accept the server answers in says as=PartialObjectMetadata (or its List),
// in protobuf or in JSON.
func asMetadata(accept string) bool {
	if !strings.Contains(accept, "as=PartialObjectMetadata") {
		return false
	}
	c := accepted(accept)
	return c != nil && (c.Params["as"] == "PartialObjectMetadata" || c.Params["as"] == "PartialObjectMetadataList")
}

// protobufOf is obj's protobuf (with its envelope: apiVersion and kind), and
// whether obj has one: a typed object of the built-in kinds with its kind
// set (a custom resource, unstructured, has none).
func (t *Transport) protobufOf(obj runtime.Object) ([]byte, bool) {
	if _, ok := obj.(runtime.Unstructured); ok || obj.GetObjectKind().GroupVersionKind().Kind == "" {
		return nil, false
	}
	info, ok := runtime.SerializerInfoForMediaType(t.codecFactory().SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		return nil, false
	}
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// protobufEvent is a watch event's protobuf frame, as kube-apiserver's
// watch stream writes it: the length (4 bytes, big-endian) of a
// metav1.WatchEvent without envelope whose object is raw, the object's
// protobuf with its envelope (protobuf.LengthDelimitedFramer and the raw
// serializer).
func protobufEvent(typ string, raw []byte) []byte {
	ev := metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}}
	n := ev.Size()
	frame := make([]byte, 4+n)
	binary.BigEndian.PutUint32(frame, uint32(n))
	if _, err := ev.MarshalToSizedBuffer(frame[4:]); err != nil {
		panic("ctrlsim: encoding a protobuf watch event: " + err.Error())
	}
	return frame
}

// metadataAnswer is obj as the metadata client gets it: an object's
// PartialObjectMetadata, a list's PartialObjectMetadataList (with its
// resourceVersion and continue), anything else (a Status) as it is.
func metadataAnswer(obj runtime.Object) (runtime.Object, bool) {
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList, *metav1.Status:
		return obj, true
	case client.Object:
		return metadataOf(o), true
	}
	if !meta.IsListType(obj) {
		return obj, true
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, false
	}
	out := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
	out.ResourceVersion, out.Continue, out.RemainingItemCount = lm.GetResourceVersion(), lm.GetContinue(), lm.GetRemainingItemCount()
	err = meta.EachListItem(obj, func(item runtime.Object) error {
		o, ok := item.(client.Object)
		if !ok {
			return fmt.Errorf("a list item %T has no metadata", item)
		}
		out.Items = append(out.Items, *metadataOf(o))
		return nil
	})
	return out, err == nil
}
