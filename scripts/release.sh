#!/usr/bin/env bash
# The release build of `haapi` and `haapi-bench`, laid out to keep the server's memory small.
#   scripts/release.sh [scratch-path]          (default .build-release; prints the binary folder last)
#
# Why these flags (docs/BENCHMARKS.md, "Memory", has the measurements behind each):
# - Linux maps a program's code 64 KiB at a time around each page it touches (the kernel's fault-around), so
#   a server that runs a few hundred scattered functions at start keeps most of an 18 MiB text resident.
#   Every function gets its own section (-function-sections for Swift, -ffunction-sections for C), and lld
#   places the sections a training run executed side by side, so they share pages: named functions through
#   --symbol-ordering-file, private ones (which have no symbol) through a linker script that gathers them
#   just before .text (scripts/release/order.py makes both from the training link's map).
# - --static-swift-stdlib links the Swift runtime, Foundation and ICU statically, so their code is ordered
#   with ours instead of being spread over five shared libraries.
# - -z pack-relative-relocs stores the relocations the loader applies at start as a bitmap (RELR): 3.5 MiB
#   that every start read becomes 50 KiB.
# - libcurl on demand (below): FoundationNetworking's curl calls load libcurl.so.4 the first time one is made,
#   so a server that never makes one does not map libcurl and its two dozen libraries.
# The training run (callgrind, so every executed instruction is seen, not a sample) is `haapi demo
# --non-interactive` plus `haapi serve` answering /health, DPoP token requests and password logins. A function
# the training did not run still works; it is only placed among the cold code.
# Installs valgrind and wrk from Debian's packages when missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. "$root/scripts/bench/serve-url.sh"
scratch="${1:-$root/.build-release}"
mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"

need() { command -v "$1" >/dev/null || { apt-get update -qq >/dev/null; apt-get install -y -qq "$2" >/dev/null; }; }
need valgrind valgrind
need wrk wrk

# Static FoundationNetworking asks the linker for -lcurl. It gets scripts/release/curl-on-demand.c instead: the
# functions FoundationNetworking calls, each loading the system's libcurl.so.4 on first use, so `haapi` starts
# without libcurl and the libraries it brings (5.4 MiB resident in `haapi serve`, which never calls it).
link="$scratch/link"
mkdir -p "$link"
ldconfig -p | grep -q 'libcurl\.so\.4 ' || { echo "release: libcurl.so.4 not found (apt-get install libcurl4)"; exit 1; }
rm -f "$link/libcurl.so"
cc -O2 -fPIC -Wall -Wextra -Werror -c "$root/scripts/release/curl-on-demand.c" -o "$link/curl-on-demand.o"
rm -f "$link/libcurl.a"
ar rcs "$link/libcurl.a" "$link/curl-on-demand.o"

compile_flags=(-c release --scratch-path "$scratch" --static-swift-stdlib
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)
link_flags=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
  -Xlinker "-L$link")
flags=("${compile_flags[@]}" "${link_flags[@]}")
# The compiler keeps an object file whose IR did not change (the .swift_modhash section), even when the
# code-generation flags did, so objects built without -function-sections would stay. Start over once per set
# of compile flags (link flags need no object rebuilt).
marker="$scratch/release-flags"
if [ "$(cat "$marker" 2>/dev/null)" != "${compile_flags[*]}" ]; then
  find "$scratch" -name '*.swift.o' -delete
  printf '%s' "${compile_flags[*]}" >"$marker"
fi
order="$scratch/haapi.order"
build() {
  swift build "${flags[@]}" "$@" --product haapi >/dev/null
  swift build "${flags[@]}" "$@" --product haapi-bench >/dev/null
}

echo "release: build (a cold one takes 10 minutes or more)" >&2
# The link map of `haapi` names the input section of every address, including the sections of private
# functions (mangled names: the ordering file needs them as the linker sees them).
swift build "${flags[@]}" -Xlinker "-Map=$scratch/haapi.map" -Xlinker --no-demangle --product haapi >/dev/null
swift build "${flags[@]}" --product haapi-bench >/dev/null
bin="$(swift build "${flags[@]}" --show-bin-path)"

echo "release: training run under callgrind" >&2
work="$(mktemp -d /dev/shm/haapi-release.XXXXXX)"
serve_pid=""
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# A copy without debug information: valgrind cannot read lld's DWARF here, and the layout needs only the
# executed addresses, which the map turns into sections.
train="$work/bin"
mkdir -p "$train"
for tool in haapi haapi-bench; do objcopy --strip-debug "$bin/$tool" "$train/$tool"; done
# An array, not a function: `"${callgrind[@]}" … &` makes $! valgrind itself, so the TERM below reaches it
# and it writes its profile.
callgrind=(valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=yes --compress-pos=no)

"${callgrind[@]}" --callgrind-out-file="$work/demo.out" "$train/haapi" demo --non-interactive >/dev/null 2>"$work/demo.log" || { cat "$work/demo.log"; exit 1; }

"${callgrind[@]}" --callgrind-out-file="$work/serve.out" "$train/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
serve_pid=$!
url="$(serve_url "$work/serve.log" 60)"
[ -n "$url" ] || { echo "release: haapi serve did not start under callgrind"; cat "$work/serve.log"; exit 1; }
wrk -t1 -c2 -d3s "$url/health" >/dev/null
"$bin/haapi-bench" proofs --htu "$url/oauth/token" --count 2000 --output "$work/proofs.txt"
wrk -t1 -c2 -d5s -s "$root/scripts/bench/dpop-token.lua" "$url/oauth/token" -- "$work/proofs.txt" \
  "Basic $(printf 'haapi-dcr-main:dcr-main-secret-change-me' | base64 -w0)" "grant_type=client_credentials&scope=dcr" 1 \
  >"$work/wrk.log" 2>&1
"$bin/haapi-bench" logins --url "$url" --clients 1 --seconds 5 >"$work/logins.log" 2>&1
kill -TERM "$serve_pid"   # a background job of a script ignores SIGINT
wait "$serve_pid" || true
serve_pid=""
[ -s "$work/serve.out" ] || { echo "release: callgrind wrote no profile for haapi serve"; exit 1; }

# Every code section either run executed: named ones go to the symbol ordering file, most executed first;
# private functions (".text..L…" sections) have no symbol to name, so a linker script places them in an
# output section just before .text, next to the ordered ones.
script="$scratch/haapi-hot.ld"
python3 "$root/scripts/release/order.py" "$scratch/haapi.map" "$order" "$script" "$work/demo.out" "$work/serve.out"
echo "release: $(wc -l <"$order") functions and $(grep -c '(' "$script") private ones in the training run; relinking" >&2
build -Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering -Xlinker -T -Xlinker "$script"
# The on-demand libcurl must have taken -lcurl's place (a libcurl.so found first would undo it quietly).
if readelf -d "$bin/haapi" | grep -q 'libcurl'; then echo "release: haapi still needs libcurl at start" >&2; exit 1; fi
echo "$bin"
