#!/usr/bin/env bash
# envtest-assets.sh builds the binaries envtest needs (kube-apiserver and etcd), and the
# kube-controller-manager the differential suite runs against them, from the Go module proxy,
# once, into a cache directory outside the repository.
#
#   hack/envtest-assets.sh              build if needed; prints what it builds and where
#   hack/envtest-assets.sh --print-dir  print the directory of an existing build of kube-apiserver
#                                       and etcd (no network; one line on stderr when it has no
#                                       kube-controller-manager yet); exit 1 with one line on
#                                       stderr when there is none
#
# The directory is $ENVTEST_ASSETS when set, else $HOME/.cache/ctrlsim/envtest/<k8s-version>.
# kube-apiserver is k8s.io/kubernetes at the newest v1.<minor>.x release that the proxy serves,
# where <minor> is the minor version of k8s.io/client-go in the repository's go.mod. It builds in
# a throwaway module that requires k8s.io/kubernetes and replaces each k8s.io/* staging module
# (which k8s.io/kubernetes's own go.mod points at ./staging/...) with its v0.<minor>.x release.
# kube-controller-manager is k8s.io/kubernetes/cmd/kube-controller-manager at the same release,
# built in the same `go build` as kube-apiserver (one build graph: the packages they share, most
# of them, compile once). Where the repository's go.mod requires k8s.io/kubernetes at that
# release, the two build in the repository's own module graph instead of the throwaway module,
# so that the packages the tests compile too are compiled once (see their step below). A directory from before kube-controller-manager was added (its stamp
# names no kube-controller-manager) keeps its kube-apiserver and etcd: only
# kube-controller-manager is built, at the kubernetes version the stamp records.
# etcd is go.etcd.io/etcd/server/v3 (its main package is the etcd binary) at the version that
# k8s.io/kubernetes's go.mod requires, i.e. the etcd that release is tested against.
# A stamp file records the versions; a second run with the same versions does nothing.
#
# Before building, it tries the ecosystem's own download, the envtest release that
# setup-envtest fetches (controller-tools' envtest-releases.yaml; $ENVTEST_INDEX_URL overrides
# it, ENVTEST_DOWNLOAD=0 skips it): the newest v1.<minor>.x kube-apiserver and etcd for this
# platform, checked against the index's sha512. It has no kube-controller-manager, which is
# then built alone at that release. Where the index is not reachable (a network that reaches
# only the Go module proxy) the attempt fails within seconds and everything is built.
# The cheap part builds first: etcd (minutes) before kube-apiserver and kube-controller-manager
# (most of the time), and a built etcd is kept ($dir/etcd.version) for a rerun after a failure;
# but where they build in the repository's module graph and it holds the same etcd, etcd builds
# in their go build (its packages shared with kube-apiserver's compile once).
#
# The build is immune to the user's Go environment: GOWORK=off (a go.work in a parent directory
# or $GOWORK would put the throwaway modules in workspace mode, where -mod=mod is refused),
# GOFLAGS is the script's own, GOOS/GOARCH are the host's, GOTOOLCHAIN=local.
set -euo pipefail

die() { echo "envtest-assets: $*" >&2; exit 1; }
say() { echo "envtest-assets: $*" >&2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base="${HOME}/.cache/ctrlsim/envtest"
export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-mod=mod -buildvcs=false"
go=${GO:-go}
GOOS=$(GOOS= GOARCH= "$go" env GOHOSTOS) && GOARCH=$(GOOS= GOARCH= "$go" env GOHOSTARCH) ||
	die "'$go env GOHOSTOS' failed: is Go installed?"
export GOOS GOARCH

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

# has_kcm <dir>: the directory's kube-controller-manager is built and recorded in its stamp.
has_kcm() {
	[[ -x $1/kube-controller-manager ]] && [[ " $(head -n1 "$1/stamp") " == *" kube-controller-manager="* ]]
}

if [[ ${1:-} == --print-dir ]]; then
	dir=$(current_dir) || die "no kube-apiserver/etcd built for client-go ${client_go} in ${ENVTEST_ASSETS:-$base/v1.$minor.*}; run 'make envtest-assets'"
	has_kcm "$dir" || say "$dir has no kube-controller-manager (the differential suite's workload tests fail without it); run 'make envtest-assets'"
	echo "$dir"
	exit 0
fi
[[ $# -eq 0 ]] || die "usage: $0 [--print-dir]"

only_kcm=""
if dir=$(current_dir); then
	if has_kcm "$dir"; then
		echo "envtest-assets: up to date in $dir ($(head -n1 "$dir/stamp"))"
		exit 0
	fi
	# kube-apiserver and etcd are current: build kube-controller-manager alone, at the
	# release they were built from.
	only_kcm=$(head -n1 "$dir/stamp" | tr ' ' '\n' | awk -F= '$1 == "kubernetes" { print $2 }')
	[[ $only_kcm =~ ^v1\.${minor}\.[0-9]+$ ]] || die "$dir/stamp records no kubernetes=v1.${minor}.x release: remove $dir and run again"
	say "$dir has kube-apiserver and etcd ($(head -n1 "$dir/stamp")) but no kube-controller-manager: building it alone"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctrlsim-envtest.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# download_release: the envtest release setup-envtest would fetch, kube-apiserver and etcd
# into $dir with a stamp naming no kube-controller-manager (built next, at that release).
# Any failure (no curl, the index unreachable within seconds, no v1.<minor>.x for this
# platform, a bad checksum) says one line and returns 1: the build from the proxy follows.
download_release() {
	local index_url=${ENVTEST_INDEX_URL:-https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml}
	local index v name url hash etcd_version d
	[[ ${ENVTEST_DOWNLOAD:-1} != 0 ]] || return 1
	command -v curl >/dev/null || { say "no curl: building instead of downloading"; return 1; }
	if ! index=$(curl -fsSL --connect-timeout 5 --max-time 30 "$index_url" 2>&1); then
		say "the envtest releases' index does not download (${index##*$'\n'}): building from the Go module proxy"
		return 1
	fi
	v=$(awk -v re="^v1[.]${minor}[.][0-9]+:\$" '/^  v/ && $1 ~ re { sub(":", "", $1); print $1 }' <<<"$index" | sort -V -r | head -n1)
	[[ -n $v ]] || { say "the envtest releases' index has no v1.${minor}.x: building from the Go module proxy"; return 1; }
	name="envtest-$v-$GOOS-$GOARCH.tar.gz"
	hash=$(awk -v n="$name:" '$1 == n { f = 1; next } f && $1 == "hash:" { print $2; exit }' <<<"$index")
	url=$(awk -v n="$name:" '$1 == n { f = 1; next } f && $1 == "selfLink:" { print $2; exit }' <<<"$index")
	[[ -n $hash && -n $url ]] || { say "the envtest releases' index has no $name: building from the Go module proxy"; return 1; }
	say "downloading $url"
	if ! curl -fsSL --connect-timeout 5 --max-time 900 -o "$tmp/envtest.tar.gz" "$url" ||
		! echo "$hash  $tmp/envtest.tar.gz" | sha512sum -c --status - 2>/dev/null ||
		! mkdir -p "$tmp/envtest" || ! tar -xzf "$tmp/envtest.tar.gz" -C "$tmp/envtest"; then
		say "$url did not download, check against its sha512 or unpack: building from the Go module proxy"
		return 1
	fi
	d=$(dirname "$(find "$tmp/envtest" -type f -name kube-apiserver | head -n1)")
	[[ -x $d/kube-apiserver && -x $d/etcd ]] || { say "$name has no kube-apiserver and etcd: building from the Go module proxy"; return 1; }
	etcd_version=$("$d/etcd" --version 2>/dev/null | awk '$1 == "etcd" && $2 == "Version:" { print "v" $3; exit }')
	dir=${ENVTEST_ASSETS:-$base/$v}
	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd)
	mv "$d/kube-apiserver" "$d/etcd" "$dir/"
	echo "$stamp_key kubernetes=$v etcd=${etcd_version:-unknown} downloaded=$url" >"$dir/stamp"
	say "downloaded kube-apiserver $v and etcd ${etcd_version:-(version unknown)} into $dir"
	only_kcm=$v
}
if [[ -z $only_kcm ]]; then
	download_release || true
fi

# The proxy's version list can lag behind (it listed no v1.37.x here while v1.37.1 downloads),
# so try the listed releases of this minor and v1.<minor>.0 ... v1.<minor>.<client-go patch>,
# newest first, and take the first whose module zip downloads (v1.37.2 answered 403).
cd "$tmp"

if [[ -n $only_kcm ]]; then
	candidates=$only_kcm
else
	listed=$("$go" list -m -versions k8s.io/kubernetes 2>/dev/null | tr ' ' '\n' | grep -E "^v1\.${minor}\.[0-9]+$" || true)
	guessed=$(seq 0 "$client_go_patch" | sed "s/^/v1.${minor}./")
	candidates=$(printf '%s\n' $listed $guessed | sort -u -V -r)
fi
k8s=""
for v in $candidates; do
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

if [[ -z $only_kcm ]]; then
	dir=${ENVTEST_ASSETS:-$base/$k8s}
	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd)
fi

godirectives=$(grep -E '^(go|godebug) ' "$kmod")

# build_in <module dir> <ldflags> <binary>=<package>...: one throwaway module per dependency
# graph (kubernetes's and etcd's), so the two do not constrain each other. The packages of one
# graph build in one `go build` (the packages they share compile once) into a directory of the
# throwaway tree, each binary named after its package's last element; each is then moved into
# $dir as <binary>, so an interrupted build leaves no partial binary there.
# With $modfile set, the build runs in the repository's own module instead, with a copy of its
# go.mod ($modfile; go.sum beside it) and without -trimpath: see kube-apiserver's step below.
build_in() {
	local mdir=$1 ldflags=$2 start=$SECONDS arg pkg elem log="$dir/build.log"
	local -a pkgs=() flags=(-trimpath)
	local cwd=$mdir
	shift 2
	if [[ -n ${modfile:-} ]]; then
		flags=(-modfile "$modfile") cwd=$repo
	fi
	for arg in "$@"; do pkgs+=("${arg#*=}"); done
	say "building ${pkgs[*]} into $dir"
	mkdir -p "$mdir/bin"
	if ! (cd "$cwd" && nice "$go" build "${flags[@]}" -ldflags "$ldflags" -o "$mdir/bin/" "${pkgs[@]}") >"$log" 2>&1; then
		die "building ${pkgs[*]} failed: $(grep -m1 -v '^go: downloading' "$log") (full log: $log)"
	fi
	rm -f "$log"
	for arg in "$@"; do
		pkg=${arg#*=} elem=${pkg##*/}
		# go build names a binary after its package's last element, or the one before a
		# major-version suffix (go.etcd.io/etcd/server/v3 builds "server").
		if [[ $elem =~ ^v[0-9]+$ ]]; then
			elem=${pkg%/*} elem=${elem##*/}
		fi
		mv "$mdir/bin/$elem" "$dir/${arg%%=*}"
	done
	say "built ${pkgs[*]} in $((SECONDS - start))s"
}

# kube-apiserver and kube-controller-manager. Where the repository's go.mod requires
# k8s.io/kubernetes at this very release (it hosts kube-controller-manager's controllers), they
# build in the repository's own module graph (a copy of its go.mod, so nothing is written to it)
# and with the flags `go vet` and `go test` use: the packages both graphs hold (1,253 of the 2,216
# of kube-apiserver and kube-controller-manager at v1.37.2, k8s.io/api, apimachinery, client-go
# and kube-controller-manager's own among them) are then the same build actions, compiled once
# into the build cache, where make test on a fresh machine compiled them twice. Otherwise (the
# proxy's newest release is another) a throwaway module as described at the top.
modfile="" etcd_with_kube=""
if [[ $(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' "$repo/go.mod") == "$k8s" ]]; then
	mkdir -p "$tmp/repo-module"
	cp "$repo/go.mod" "$tmp/repo-module/go.mod"
	cp "$repo/go.sum" "$tmp/repo-module/go.sum"
	modfile="$tmp/repo-module/go.mod"
	say "kube-apiserver and kube-controller-manager build in the repository's module graph (its go.mod requires k8s.io/kubernetes $k8s): their shared packages compile once for them and for the tests"
	# etcd too, where that graph holds the etcd the release requires (k8s.io/kubernetes's own
	# integration tests build it in its graph): in the same go build, it compiles only its own
	# packages (measured on 2 cores: 30 s, against 243 s in a module of its own, where grpc,
	# protobuf and OpenTelemetry compile a second time at etcd's versions).
	if [[ $(cd "$repo" && "$go" list -modfile "$modfile" -m go.etcd.io/etcd/server/v3 2>/dev/null | awk '{ print $2 }') == "$etcd" ]]; then
		etcd_with_kube=1
	fi
fi
# etcd first: the cheap part (minutes, against most of an hour for kube-apiserver), so that a
# broken environment shows at once; a built etcd is kept for a rerun ($dir/etcd.version). In the
# repository's graph (above) it builds with kube-apiserver instead.
if [[ -z $only_kcm ]]; then
	if [[ -x $dir/etcd && $(cat "$dir/etcd.version" 2>/dev/null) == "$etcd $go_version" ]]; then
		say "etcd $etcd is already built in $dir"
		etcd_with_kube=""
	elif [[ -n $etcd_with_kube ]]; then
		say "etcd: go.etcd.io/etcd/server/v3 $etcd (the version k8s.io/kubernetes $k8s requires) builds with kube-apiserver, in the repository's module graph"
	else
		mkdir -p "$tmp/etcd"
		printf 'module ctrlsim.local/envtest-assets/etcd\n\n%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' \
			"$(grep -E '^go ' "$kmod")" "$etcd" >"$tmp/etcd/go.mod"
		say "etcd: go.etcd.io/etcd/server/v3 $etcd (the version k8s.io/kubernetes $k8s requires)"
		build_in "$tmp/etcd" "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd" etcd=go.etcd.io/etcd/server/v3
		echo "$etcd $go_version" >"$dir/etcd.version"
	fi
fi

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
# The release's time, from the proxy's .info file (`go mod download -json` names no Time when
# the module is already in the module cache).
info=$("$go" mod download -json "k8s.io/kubernetes@$k8s" | awk -F'"' '$2 == "Info" { print $4 }')
build_date=$(sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' "$info" 2>/dev/null || true)
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done
if [[ -n $only_kcm ]]; then
	say "kube-controller-manager: k8s.io/kubernetes $k8s with staging modules at $staging_version"
	build_in "$tmp/kube-apiserver" "$ldflags" kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
	stamp=$(head -n1 "$dir/stamp")
	echo "$stamp kube-controller-manager=$k8s" >"$dir/stamp.tmp"
	mv "$dir/stamp.tmp" "$dir/stamp"
	echo "envtest-assets: built kube-controller-manager $k8s into $dir, next to its kube-apiserver and etcd (KUBEBUILDER_ASSETS=$dir)"
	exit 0
fi
say "kube-apiserver and kube-controller-manager: k8s.io/kubernetes $k8s with staging modules at $staging_version"
binaries=(kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager)
if [[ -n $etcd_with_kube ]]; then
	binaries+=(etcd=go.etcd.io/etcd/server/v3)
	ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd"
fi
build_in "$tmp/kube-apiserver" "$ldflags" "${binaries[@]}"
if [[ -n $etcd_with_kube ]]; then
	echo "$etcd $go_version" >"$dir/etcd.version"
fi


echo "$stamp_key kubernetes=$k8s etcd=$etcd built-with=$go_version kube-controller-manager=$k8s" >"$dir/stamp"
echo "envtest-assets: built kube-apiserver and kube-controller-manager $k8s and etcd $etcd into $dir (KUBEBUILDER_ASSETS=$dir)"
