#!/usr/bin/env bash
# build-ctrlsim.sh OUT builds the command (cmd/ctrlsim/internal/ctrlsim; cmd/ctrlsim is its
# launcher, which builds it the same way for go run and go tool) into OUT (make run's first step)
# and says what it is doing: on a cold build cache it compiles kube-apiserver's code, minutes of
# work, so it prints a line every 100 packages compiled; on a warm cache it prints only its first
# and last lines.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: $0 OUT}
go=${GO:-go}
cd "$repo"
mkdir -p "$(dirname "$out")"
echo "compiling ctrlsim into $out (the first time takes minutes: it builds kube-apiserver's code)"
start=$SECONDS
# go build -v names each package it compiles (cached ones not) on stderr; other lines are
# errors, passed through.
"$go" build -v -o "$out" ./cmd/ctrlsim/internal/ctrlsim 2>&1 | awk -v start="$(date +%s)" '
	/^[^ \t:#]+$/ {
		n++
		if (n % 100 == 0) {
			"date +%s" | getline now
			close("date +%s")
			printf "  %d packages compiled (%ds)\n", n, now - start
			fflush()
		}
		next
	}
	{ print; fflush() }'
if ((SECONDS - start > 5)); then
	echo "compiled ctrlsim in $((SECONDS - start))s"
fi
