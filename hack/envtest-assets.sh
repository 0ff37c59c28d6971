#!/usr/bin/env bash
# envtest-assets.sh builds the binaries envtest needs (kube-apiserver and etcd) from the Go
# module proxy, once, into a cache directory outside the repository.
#
#   hack/envtest-assets.sh              build if needed; prints what it builds and where
#   hack/envtest-assets.sh --print-dir  print the directory of an existing build (no network);
#                                       exit 1 with one line on stderr when there is none
#
# The directory is $ENVTEST_ASSETS when set, else $HOME/.cache/ctrlsim/envtest/<k8s-version>.
# kube-apiserver is k8s.io/kubernetes at the newest v1.<minor>.x release that the proxy serves,
# where <minor> is the minor version of k8s.io/client-go in the repository's go.mod. It builds in
# a throwaway module that requires k8s.io/kubernetes and replaces each k8s.io/* staging module
# (which k8s.io/kubernetes's own go.mod points at ./staging/...) with its v0.<minor>.x release.
# etcd is go.etcd.io/etcd/server/v3 (its main package is the etcd binary) at the version that
# k8s.io/kubernetes's go.mod requires, i.e. the etcd that release is tested against.
# A stamp file records the versions; a second run with the same versions does nothing.
set -euo pipefail

die() { echo "envtest-assets: $*" >&2; exit 1; }
say() { echo "envtest-assets: $*" >&2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base="${HOME}/.cache/ctrlsim/envtest"
export GOTOOLCHAIN=local
go=${GO:-go}

client_go=$(awk '$1 == "k8s.io/client-go" { print $2; exit }' "$repo/go.mod")
[[ $client_go =~ ^v0\.([0-9]+)\.([0-9]+)$ ]] || die "cannot read the k8s.io/client-go version from $repo/go.mod (got '${client_go}')"
minor=${BASH_REMATCH[1]} client_go_patch=${BASH_REMATCH[2]}
go_version=$("$go" env GOVERSION) || die "'$go env GOVERSION' failed: is Go installed?"

# stamp_key is what a finished build records; a build is current when its stamp starts with it.
stamp_key="client-go=${client_go}"

# current_dir prints a directory holding a finished build for these inputs, if there is one.
current_dir() {
	local d
	if [[ -n ${ENVTEST_ASSETS:-} ]]; then
		set -- "$ENVTEST_ASSETS"
	else
		# Newest release first.
		set -- $(ls -d "$base"/v1."$minor".* 2>/dev/null | sort -V -r)
	fi
	for d in "$@"; do
		if [[ -x $d/kube-apiserver && -x $d/etcd && -f $d/stamp ]] &&
			[[ $(head -n1 "$d/stamp") == "$stamp_key "* ]]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

if [[ ${1:-} == --print-dir ]]; then
	current_dir || die "no kube-apiserver/etcd built for client-go ${client_go} in ${ENVTEST_ASSETS:-$base/v1.$minor.*}; run 'make envtest-assets'"
	exit 0
fi
[[ $# -eq 0 ]] || die "usage: $0 [--print-dir]"

if dir=$(current_dir); then
	echo "envtest-assets: up to date in $dir ($(head -n1 "$dir/stamp"))"
	exit 0
fi

# The proxy's version list can lag behind (it listed no v1.37.x here while v1.37.1 downloads),
# so try the listed releases of this minor and v1.<minor>.0 ... v1.<minor>.<client-go patch>,
# newest first, and take the first whose module zip downloads (v1.37.2 answered 403).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctrlsim-envtest.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"

listed=$("$go" list -m -versions k8s.io/kubernetes 2>/dev/null | tr ' ' '\n' | grep -E "^v1\.${minor}\.[0-9]+$" || true)
guessed=$(seq 0 "$client_go_patch" | sed "s/^/v1.${minor}./")
k8s=""
for v in $(printf '%s\n' $listed $guessed | sort -u -V -r); do
	if kmod=$("$go" mod download -json "k8s.io/kubernetes@$v" 2>/dev/null | awk -F'"' '$2 == "GoMod" { print $4 }') && [[ -n $kmod ]]; then
		k8s=$v
		break
	fi
	say "k8s.io/kubernetes@$v does not download; trying an older release"
done
[[ -n $k8s ]] || die "no k8s.io/kubernetes v1.${minor}.x downloads from $("$go" env GOPROXY)"
patch=${k8s##*.}
staging_version="v0.${minor}.${patch}"

etcd=$(awk '$1 == "go.etcd.io/etcd/server/v3" { print $2; exit }' "$kmod")
[[ -n $etcd ]] || die "k8s.io/kubernetes@$k8s go.mod does not name go.etcd.io/etcd/server/v3"

dir=${ENVTEST_ASSETS:-$base/$k8s}
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)

export GOFLAGS="-mod=mod -buildvcs=false"
godirectives=$(grep -E '^(go|godebug) ' "$kmod")

# build_in <module dir> <output> <package> <ldflags>: one throwaway module per binary, so the
# two dependency graphs (kubernetes's and etcd's) do not constrain each other.
build_in() {
	local mdir=$1 out=$2 pkg=$3 ldflags=$4 start=$SECONDS
	say "building $pkg into $out"
	if ! (cd "$mdir" && nice "$go" build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg") >"$out.build.log" 2>&1; then
		die "building $pkg failed: $(grep -m1 -v '^go: downloading' "$out.build.log") (full log: $out.build.log)"
	fi
	rm -f "$out.build.log"
	mv "$out.tmp" "$out"
	say "built $out in $((SECONDS - start))s"
}

# kube-apiserver
mkdir -p "$tmp/kube-apiserver"
{
	echo "module ctrlsim.local/envtest-assets/kube-apiserver"
	echo
	echo "$godirectives"
	echo
	echo "require k8s.io/kubernetes $k8s"
	echo
	echo "replace ("
	awk '$1 == "replace" && $2 == "(" { r = 1; next } r && $1 == ")" { r = 0 } r && $2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$kmod" |
		while read -r m; do echo "	$m => $m $staging_version"; done
	echo ")"
} >"$tmp/kube-apiserver/go.mod"
build_date=$("$go" mod download -json "k8s.io/kubernetes@$k8s" | awk -F'"' '$2 == "Time" { print $4 }')
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done
say "kube-apiserver: k8s.io/kubernetes $k8s with staging modules at $staging_version"
build_in "$tmp/kube-apiserver" "$dir/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$ldflags"

# etcd
mkdir -p "$tmp/etcd"
printf 'module ctrlsim.local/envtest-assets/etcd\n\n%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' \
	"$(grep -E '^go ' "$kmod")" "$etcd" >"$tmp/etcd/go.mod"
say "etcd: go.etcd.io/etcd/server/v3 $etcd (the version k8s.io/kubernetes $k8s requires)"
build_in "$tmp/etcd" "$dir/etcd" go.etcd.io/etcd/server/v3 \
	"-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd"

echo "$stamp_key kubernetes=$k8s etcd=$etcd built-with=$go_version" >"$dir/stamp"
echo "envtest-assets: built kube-apiserver $k8s and etcd $etcd into $dir (KUBEBUILDER_ASSETS=$dir)"
