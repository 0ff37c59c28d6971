package process

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// errorSummary is the trace's form of an error: the API status reason when there
// is one, with the message.
func errorSummary(err error) string {
	if reason := apierrors.ReasonForError(err); reason != "" {
		return string(reason) + ": " + err.Error()
	}
	return "error: " + err.Error()
}
