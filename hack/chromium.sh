#!/bin/sh
# Prints the path of a headless Chromium for the run inspector's browser test
# (cmd/ctrlsim TestInspectorInBrowser), installing Debian's chromium package when
# it is missing and this machine can (root and apt-get). It says on stderr which
# happened: found, installed, or not available (then it prints nothing and the
# test skips, saying so).
set -u
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
