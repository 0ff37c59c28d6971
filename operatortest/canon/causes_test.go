package canon

import "testing"

// A write refused for the user's own value is one error whichever call met
// it: kube-apiserver answers a Service's create with its IP allocator's
// internal error (before validation) and an update with validation's field
// errors, on the one value the BrokerService holds at spec.clusterIP.
// Another value, an error that refuses no write (not found, forbidden), and
// a refusal that also quotes a value the user did not set are not read so.
func TestARefusalOfTheUsersValueIsThatValue(t *testing.T) {
	user := UserValues(map[string]any{
		"metadata": map[string]any{"name": "amqp", "namespace": "queue"},
		"spec":     map[string]any{"clusterIP": "y0p", "port": int64(5672), "secret": "amqp-user"},
		"status":   map[string]any{"message": "y0p"},
	})
	create := `Internal error occurred: failed to parse service IP "y0p"`
	update := `Service "amqp" is invalid: [spec.clusterIPs[0]: Invalid value: "y0p": must be a valid IP address, spec.clusterIPs[0]: Invalid value: []string{"y0p"}: may not change once set]`
	a, okA := UserValueCause("error: creating the Service: "+create, "queue/amqp", user)
	b, okB := UserValueCause("error: "+update, "queue/amqp", user)
	if !okA || !okB || a != b {
		t.Errorf("one user value refused by a create and an update reads as %q (%v) and %q (%v)", a, okA, b, okB)
	}
	if want := `<refused the user's value: queue/amqp spec.clusterIP "y0p">`; a != want {
		t.Errorf("the cause is %q, want %q", a, want)
	}
	other := UserValues(map[string]any{"spec": map[string]any{"clusterIP": "y0q"}})
	if c, ok := UserValueCause("error: "+create, "queue/amqp", other); ok {
		t.Errorf("a value the user did not set is read as the user's: %q", c)
	}
	for _, text := range []string{
		`error: secrets "amqp-user" not found`,
		`error: secrets "amqp-user" is forbidden: User "system:serviceaccount:queue:op" cannot get resource "secrets"`,
		`error: Service "amqp" is invalid: [spec.clusterIP: Invalid value: "y0p": must be a valid IP address, metadata.labels: Invalid value: "-bad": a valid label must ...]`,
	} {
		if c, ok := UserValueCause(text, "queue/amqp", user); ok {
			t.Errorf("%s\nis read as a refusal of the user's value alone: %q", text, c)
		}
	}
	// A value the user holds at two paths names no one field.
	twice := UserValues(map[string]any{"spec": map[string]any{"clusterIP": "y0p", "alias": "y0p"}})
	if c, ok := UserValueCause("error: "+create, "queue/amqp", twice); ok {
		t.Errorf("a value held at two paths is read as one field's: %q", c)
	}
}
