#!/usr/bin/env bash
# The release channel's download benchmark.
#
#   bash bench/channel.sh <path-to-liken> [rounds]
#
# Makes a release of about 1 GiB from random bytes, bundles it, shares it
# with `liken serve` on 127.0.0.1, and then, in alternating order for each
# round, times
#   - `liken fetch -digest ...` of the release into an empty directory
#     (download, size and sha256 checked while streaming, fsync, rename), and
#   - `curl` of release.yaml and the nine artifacts, then `sha256sum -c`
#     of the nine against release.yaml,
# and prints the best time of each and their ratio (fetch / curl). The
# server's files are read once first so both clients are served from the
# page cache. Everything lives in one temporary directory, removed at the
# end, and the server is stopped by its process id.
set -euo pipefail

liken=${1:?usage: bash bench/channel.sh <path-to-liken> [rounds]}
rounds=${2:-3}
liken=$(realpath "$liken")
for tool in curl sha256sum awk; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is needed" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/liken-bench.XXXXXX")
server=""
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

version=2026.07.20-001
names=(vmlinuz liken.sqfs boot.cpio microcode.cpio liken systemd-bootx64.efi grub-boot.img grub-core.img LICENSES.md)
sizes_mib=(14 900 48 8 24 1 1 1 1)

echo "bench: making a release of $(( $(IFS=+; echo "${sizes_mib[*]}") )) MiB in $work" >&2
mkdir -p "$work/in"
inputs=()
for i in "${!names[@]}"; do
	f="$work/in/${names[$i]}"
	head -c "$(( sizes_mib[i] << 20 ))" /dev/urandom >"$f"
	inputs+=("$f")
done
"$liken" bundle -slot-size 2Gi "${inputs[@]}" "$work/channel" "$version" >"$work/bundle.out"
digest=$(awk '/^release.yaml /{print $2}' "$work/bundle.out")
rm -rf "$work/in"

"$liken" serve "$work/channel" 127.0.0.1:0 2>"$work/serve.log" &
server=$!
url=""
for _ in $(seq 1 100); do
	url=$(sed -n 's/^liken serve: sharing .* on \(http:.*\)$/\1/p' "$work/serve.log")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { echo "bench: liken serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
cat "$work/channel/$version"/* >/dev/null

now() { date +%s.%N; }

run_fetch() {
	rm -rf "$work/fetched"
	local t0 t1
	t0=$(now)
	"$liken" fetch -digest "$digest" "$url" "$version" "$work/fetched" >/dev/null 2>&1
	t1=$(now)
	echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}

run_curl() {
	rm -rf "$work/curled"
	mkdir -p "$work/curled"
	local t0 t1
	t0=$(now)
	(
		cd "$work/curled"
		curl -fsS -o release.yaml "$url/$version/release.yaml"
		for n in "${names[@]}"; do
			curl -fsS -o "$n" "$url/$version/$n"
		done
		# release.yaml holds name/sha256 pairs; check each file against it.
		awk '/- name:/{n=$3} /sha256:/{print $2 "  " n}' release.yaml | sha256sum -c --quiet -
	)
	t1=$(now)
	echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}

best_fetch="" best_curl=""
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		f=$(run_fetch); c=$(run_curl)
	else
		c=$(run_curl); f=$(run_fetch)
	fi
	cmp -s "$work/fetched/$version/liken.sqfs" "$work/curled/liken.sqfs" || { echo "bench: the two copies differ" >&2; exit 1; }
	echo "bench: round $r: liken fetch ${f}s, curl + sha256sum ${c}s" >&2
	best_fetch=$(awk -v a="$best_fetch" -v b="$f" 'BEGIN{print (a == "" || b < a) ? b : a}')
	best_curl=$(awk -v a="$best_curl" -v b="$c" 'BEGIN{print (a == "" || b < a) ? b : a}')
done

awk -v f="$best_fetch" -v c="$best_curl" 'BEGIN{
	printf "liken fetch: %.3fs  curl + sha256sum: %.3fs  ratio: %.2f (goal <= 1.10)\n", f, c, f / c
}'
