#!/usr/bin/env bash
# Builds the test control plane -- kube-apiserver, kube-controller-manager
# and kine (SQLite) -- from the pinned upstream sources in go.mod/go.sum and
# kine/go.mod/go.sum, once per machine, into a cache outside the clone:
#
#   ${LIKEN_CACHE:-$HOME/.cache/liken}/controlplane/<key>/{kube-apiserver,kube-controller-manager,kine}
#
# and links them at <repo>/out/testenv/bin/. <key> names the pinned versions
# and hashes everything that decides the binaries' contents (both go.mod and
# go.sum, the Go toolchain and this recipe), so a cache hit rebuilds nothing.
#
#   tests/controlplane/build.sh            build if the cache lacks it, then link
#   tests/controlplane/build.sh --rebuild  build again even on a cache hit
#   tests/controlplane/build.sh --print-dir  print the cache directory and exit
#
# See README.md beside this file.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

log() { printf 'controlplane: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

rebuild=0
print_dir=0
for arg in "$@"; do
  case $arg in
    --rebuild) rebuild=1 ;;
    --print-dir) print_dir=1 ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $arg (try --help)" ;;
  esac
done

# --- The pins. The versions come from the go.mod files (the one source of
# truth); what the module proxy cannot say about a release is pinned here and
# checked against go.mod, so bumping one without the other fails loudly.
K8S_PINNED=v1.35.4
# The release's commit and build date, as the official v1.35.4 binaries
# report them in /version (from a published /version of that release; the
# module proxy serves no commit hash, and the tag was out of reach to check).
K8S_GIT_COMMIT=7b8c6cf0edd376b3d7c2f255142977c7f93db258
K8S_BUILD_DATE=2026-04-15T18:01:23Z
# Bump when a flag below changes what gets built.
RECIPE=2

modver() { # modver <go.mod> <module>: the required version of <module>
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit }
                 $1 == "require" && $2 == m { print $3; exit }' "$1"
}

k8s_version=$(modver "$here/go.mod" k8s.io/kubernetes)
kine_version=$(modver "$here/kine/go.mod" github.com/k3s-io/kine)
[[ -n $k8s_version ]] || die "no k8s.io/kubernetes requirement in $here/go.mod"
[[ -n $kine_version ]] || die "no github.com/k3s-io/kine requirement in $here/kine/go.mod"
[[ $k8s_version == "$K8S_PINNED" ]] ||
  die "go.mod requires k8s.io/kubernetes $k8s_version but build.sh pins $K8S_PINNED: update K8S_PINNED, K8S_GIT_COMMIT and K8S_BUILD_DATE together"

command -v go >/dev/null || die "no Go toolchain on PATH (go.mod needs go $(awk '$1=="go"{print $2}' "$here/kine/go.mod") or newer)"
# The toolchain each module builds with (GOTOOLCHAIN may switch per module).
go_k8s=$(cd "$here" && go env GOVERSION)
go_kine=$(cd "$here/kine" && go env GOVERSION)
goarch=$(go env GOOS)-$(go env GOARCH)

hash=$({
  printf 'recipe=%s\ngo=%s %s %s\ncommit=%s date=%s\n' "$RECIPE" "$go_k8s" "$go_kine" "$goarch" "$K8S_GIT_COMMIT" "$K8S_BUILD_DATE"
  cat "$here/go.mod" "$here/go.sum" "$here/kine/go.mod" "$here/kine/go.sum"
} | sha256sum | cut -c1-16)
key="k8s-${k8s_version}_kine-${kine_version}_${goarch}_${hash}"
cache_root="${LIKEN_CACHE:-$HOME/.cache/liken}/controlplane"
dir="$cache_root/$key"

if (( print_dir )); then echo "$dir"; exit 0; fi

bins=(kube-apiserver kube-controller-manager kubectl kine)
have_all() {
  [[ -f "$dir/.complete" ]] || return 1
  local b
  for b in "${bins[@]}"; do [[ -x "$dir/$b" ]] || return 1; done
}

link() {
  local out="$repo/out/testenv/bin" b
  mkdir -p "$out"
  for b in "${bins[@]}"; do
    ln -sfn "$dir/$b" "$out/$b"
    log "linked out/testenv/bin/$b -> $dir/$b"
  done
}

if (( ! rebuild )) && have_all; then
  log "cache hit: $dir (kubernetes $k8s_version, kine $kine_version); nothing to build"
  link
  exit 0
fi

# --- Build. One machine-wide lock per key, so two clones building at once
# do not both spend the time; the second finds the first one's result.
mkdir -p "$cache_root"
exec 9>"$cache_root/.lock-$key"
if ! flock -n 9; then
  log "another build of $key is running; waiting for it"
  flock 9
fi
if (( ! rebuild )) && have_all; then
  log "cache filled by another build meanwhile: $dir"
  link
  exit 0
fi

# kine links SQLite through cgo (mattn/go-sqlite3, compiled from its bundled
# source): it needs a C compiler and the C library's headers.
need_pkgs=()
command -v gcc >/dev/null || need_pkgs+=(gcc)
[[ -e /usr/include/stdio.h ]] || need_pkgs+=(libc6-dev)
if (( ${#need_pkgs[@]} )); then
  command -v apt-get >/dev/null || die "need ${need_pkgs[*]} (no apt-get here: install them by hand)"
  sudo=()
  if (( EUID != 0 )); then
    command -v sudo >/dev/null || die "need ${need_pkgs[*]}: run as root or install them"
    sudo=(sudo)
  fi
  log "installing ${need_pkgs[*]} (apt-get)"
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${need_pkgs[@]}"
fi

tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The ldflags k8s's hack/lib/version.sh sets (both copies of the version
# package), plus -s -w as its release builds strip.
vflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  vflags+=" -X '$pkg.buildDate=$K8S_BUILD_DATE'"
  vflags+=" -X '$pkg.gitCommit=$K8S_GIT_COMMIT'"
  vflags+=" -X '$pkg.gitTreeState=clean'"
  vflags+=" -X '$pkg.gitVersion=$k8s_version'"
  vflags+=" -X '$pkg.gitMajor=$(cut -d. -f1 <<<"${k8s_version#v}")'"
  vflags+=" -X '$pkg.gitMinor=$(cut -d. -f2 <<<"$k8s_version")'"
done

started=$SECONDS
for b in kube-apiserver kube-controller-manager kubectl; do
  t=$SECONDS
  log "building $b $k8s_version ($go_k8s; the first build on a machine downloads modules and takes many minutes)"
  # Static, no cgo: as upstream builds these two.
  (cd "$here" && CGO_ENABLED=0 go build -mod=readonly -trimpath -buildvcs=false \
     -ldflags "-s -w$vflags" -o "$tmp/$b" "k8s.io/kubernetes/cmd/$b")
  log "built $b in $((SECONDS - t))s"
done

t=$SECONDS
log "building kine $kine_version with SQLite (cgo, $go_kine)"
# Tags and SQLite compile options as kine's own scripts/build uses them
# (less the NATS backend, which the tests do not use).
kine_tags=sqlite_unlock_notify,sqlite_vtable,sqlite_stat4,sqlite_preupdate_hook,sqlite_math_functions,sqlite_dbstat,sqlite_column_metadata
kine_cflags="-O2 -DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_DISABLE_INTRINSIC -DSQLITE_ENABLE_COLUMN_METADATA
 -DSQLITE_ENABLE_DBPAGE_VTAB -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_MATH_FUNCTIONS
 -DSQLITE_ENABLE_MEMORY_MANAGEMENT -DSQLITE_ENABLE_OFFSET_SQL_FUNC -DSQLITE_ENABLE_PREUPDATE_HOOK
 -DSQLITE_ENABLE_RBU -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_SNAPSHOT
 -DSQLITE_ENABLE_STAT4 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
 -DSQLITE_THREADSAFE=1 -DSQLITE_WITHOUT_ZONEMALLOC"
(cd "$here/kine" && CGO_ENABLED=1 CGO_CFLAGS="$kine_cflags" go build -mod=readonly -trimpath -buildvcs=false \
   -tags "$kine_tags" -ldflags "-s -w -X 'github.com/k3s-io/kine/pkg/version.Version=$kine_version'" \
   -o "$tmp/kine" github.com/k3s-io/kine)
log "built kine in $((SECONDS - t))s"

# A cheap proof the binaries run before they enter the cache.
got=$("$tmp/kube-apiserver" --version)
[[ $got == "Kubernetes $k8s_version" ]] || die "kube-apiserver --version said '$got', wanted 'Kubernetes $k8s_version'"
"$tmp/kube-controller-manager" --version >/dev/null
"$tmp/kubectl" version --client >/dev/null
"$tmp/kine" --version >/dev/null

{
  printf 'kubernetes %s (commit %s)\nkine %s\ngo %s / %s\nbuilt %s in %ss\n' \
    "$k8s_version" "$K8S_GIT_COMMIT" "$kine_version" "$go_k8s" "$go_kine" "$(date -u +%FT%TZ)" "$((SECONDS - started))"
} >"$tmp/BUILD-INFO"
touch "$tmp/.complete"
chmod 755 "$tmp"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
log "built all four in $((SECONDS - started))s into $dir"
link
