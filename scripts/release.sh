#!/usr/bin/env bash
# The release build of `haapi` and `haapi-bench`: the plain Swift release build with the Swift runtime and
# Foundation linked statically (the documented `--static-swift-stdlib`), so the binary runs on a Linux machine
# without a Swift toolchain. This is the build the README tells users to make and the one scripts/bench.sh
# measures.
#   scripts/release.sh [scratch-path]          (default .build-release; prints the binary folder last)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# No module of these products imports FoundationNetworking on Linux, so the binaries link neither it nor the
# system's libcurl: they need only libc, libstdc++, zlib and SQLite at run time.
scratch="${1:-$root/.build-release}"
flags=(-c release --static-swift-stdlib --scratch-path "$scratch")
echo "release: swift build ${flags[*]} (a cold build takes 10 minutes or more)" >&2
swift build "${flags[@]}" --product haapi >/dev/null
swift build "${flags[@]}" --product haapi-bench >/dev/null
swift build "${flags[@]}" --show-bin-path
