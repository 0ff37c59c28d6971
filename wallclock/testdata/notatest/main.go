// Command notatest seeds a world's randomness in a program that is not a
// test binary (as ctrlsim run does, through internal/outside.Run) and prints
// what it drew: from crypto/rand.Read, and implicitly (an ML-KEM key, whose
// generation takes no reader). Run by wallclock's
// TestAProgramThatIsNoTestSeedsCryptoRandsReaderButNotItsImplicitDraws.
package main

import (
	"crypto/mlkem"
	cryptorand "crypto/rand"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/ctrlsim/ctrlsim/internal/outside"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

func main() {
	testing.Init()
	flag.Parse()
	var out string
	err := outside.Run("Draws", func(t *testing.T) {
		wallclock.Run(t, func(t *testing.T, _ *cluster.Wall) {
			wallclock.SeedRandom(t, 7)
			b := make([]byte, 8)
			_, _ = cryptorand.Read(b)
			k, err := mlkem.GenerateKey768()
			if err != nil {
				t.Fatal(err)
			}
			out = fmt.Sprintf("read %x key %x", b, k.Bytes()[:8])
		})
	})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(out)
}
