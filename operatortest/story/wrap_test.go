package story

import (
	"strings"
	"testing"
)

// A line with a long word (a base64 value in a violation's detail) wraps:
// every piece is at most n characters and the text is all there, where it
// looped for ever once the continuation's indent was the only space left.
func TestWrapCutsALongWordInsteadOfLoopingOnTheIndent(t *testing.T) {
	long := "converges: Secret team/b-copy differs: " + strings.Repeat("azUyLGsxOSxrMTUs", 40)
	lines := wrap(long, 150)
	var joined strings.Builder
	for i, l := range lines {
		if len([]rune(l)) > 150 {
			t.Errorf("line %d has %d characters, want at most 150", i, len([]rune(l)))
		}
		joined.WriteString(l)
	}
	if got := strings.ReplaceAll(joined.String(), " ", ""); got != strings.ReplaceAll(long, " ", "") {
		t.Errorf("the wrapped text lost characters:\n%q\nwant\n%q", got, long)
	}
}
