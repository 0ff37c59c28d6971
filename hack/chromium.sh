#!/bin/sh
# Prints the path of a headless Chromium for the run inspector's browser test
# (cmd/ctrlsim TestInspectorInBrowser), installing Debian's chromium package when
# it is missing and this machine can (root and apt-get). It says on stderr which
# happened: found, installed, or not available (then it prints nothing and the
# test skips, saying so).
#
#   hack/chromium.sh --start DIR   find or install it in the background (make test
#                                  starts it before the envtest build: apt-get waits
#                                  on the network and the disk while the build
#                                  compiles), into DIR
#   hack/chromium.sh --wait DIR    wait for that, then say and print what it found
#                                  (as a run without arguments would; without a
#                                  --start into DIR, it is such a run)
set -u
case "${1:-}" in
--start)
	dir=$2
	mkdir -p "$dir" && rm -f "$dir/path" "$dir/log" "$dir/done"
	("$0" >"$dir/path" 2>"$dir/log"; touch "$dir/done") </dev/null >/dev/null 2>&1 &
	exit 0
	;;
--wait)
	dir=$2
	if [ -f "$dir/log" ] || [ -f "$dir/path" ]; then
		[ -f "$dir/done" ] || echo "chromium: waiting for the search started before the envtest build" >&2
		while [ ! -f "$dir/done" ]; do sleep 1; done
		cat "$dir/log" >&2
		cat "$dir/path"
		exit 0
	fi
	;;
esac
for b in "${CTRLSIM_CHROMIUM:-}" chromium chromium-browser; do
	[ -n "$b" ] || continue
	if p=$(command -v "$b" 2>/dev/null); then
		echo "chromium: found $p: the inspector's browser test runs" >&2
		echo "$p"
		exit 0
	fi
done
log=${TMPDIR:-/tmp}/ctrlsim-chromium-install.log
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "chromium: not found; installing Debian's chromium package (log: $log)" >&2
	if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1 &&
		p=$(command -v chromium); then
		echo "chromium: installed $p: the inspector's browser test runs" >&2
		echo "$p"
		exit 0
	fi
	echo "chromium: installation failed (see $log): the inspector's browser test is SKIPPED" >&2
	exit 0
fi
echo "chromium: not found and cannot be installed here (needs root and apt-get): the inspector's browser test is SKIPPED" >&2
exit 0
