package canon

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import "testing"

// A random token an operator drew, which no run learnt and no author
// named, is compared as it is.
func TestARandomTokenNobodyNamesIsComparedAsItIs(t *testing.T) {
	if got := NewTokens(nil).Text("token a8f3kq2zx9"); got != "token a8f3kq2zx9" {
		t.Errorf("the token reads %q", got)
	}
}

// A time in RFC 3339 or Go's String form is masked; one in another layout
// (ANSIC, RFC 822) is compared as it is.
func TestATimeInAnotherLayoutIsComparedAsItIs(t *testing.T) {
	c := NewTokens(nil)
	for _, s := range []string{"at 2026-01-01T00:00:03Z", "at 2026-01-01 00:00:03 +0000 UTC"} {
		if got := c.Text(s); got != "at <time>" {
			t.Errorf("%q reads %q, want it masked", s, got)
		}
	}
	for _, s := range []string{"at Thu Jan  1 00:00:03 2026", "at 01 Jan 26 00:00 UTC"} {
		if got := c.Text(s); got != s {
			t.Errorf("%q reads %q, want it as it is", s, got)
		}
	}
}
