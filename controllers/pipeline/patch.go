package pipeline

import (
	"bytes"
	"context"
	"encoding/json"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// serialPatcher is the part of fluxcd/pkg/runtime/patch.SerialPatcher the
// pipeline controller uses (runtime/patch/serial.go, patch.go): each Patch sends
// the status changes since the previous successful Patch as a JSON merge patch of
// the status subresource, with no resourceVersion precondition, and nothing when
// the status did not change. As in the helper, the patch is sent from a copy: the
// caller's object keeps the resourceVersion it was read with.
type serialPatcher struct {
	c      client.Client
	before *Pipeline
}

func newSerialPatcher(p *Pipeline, c client.Client) *serialPatcher {
	return &serialPatcher{c: c, before: p.DeepCopy()}
}

func (sp *serialPatcher) Patch(ctx context.Context, p *Pipeline) error {
	before, err := json.Marshal(sp.before.Status)
	if err != nil {
		return err
	}
	after, err := json.Marshal(p.Status)
	if err != nil {
		return err
	}
	if bytes.Equal(before, after) {
		return nil // the helper's calculateChanges finds no "status" key
	}
	if err := sp.c.Status().Patch(ctx, p.DeepCopy(), client.MergeFrom(sp.before)); err != nil {
		return err
	}
	sp.before = p.DeepCopy()
	return nil
}
