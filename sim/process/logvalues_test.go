package process

import "testing"

type phase string

type point struct{ X, Y int }

// Values print as zap prints them: text as itself (a named string type too),
// quoted only where it must be; JSON values never quoted again.
func TestLogValuesPrintAsZapPrintsThem(t *testing.T) {
	s := &traceSink{}
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{"op", phase("created")}, `m op=created`},
		{[]any{"op", "created"}, `m op=created`},
		{[]any{"note", phase("two words")}, `m note="two words"`},
		{[]any{"names", []string{"a", "b"}}, `m names=["a","b"]`},
		{[]any{"p", point{1, 2}}, `m p={"X":1,"Y":2}`},
		{[]any{"n", 3, "ok", true, "none", nil}, `m n=3 ok=true none=null`},
		{[]any{"empty", ""}, `m empty=""`},
	} {
		if got := s.line("m", c.kv); got != c.want {
			t.Errorf("line(%v) = %s, want %s", c.kv, got, c.want)
		}
	}
}
