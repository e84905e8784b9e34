#!/usr/bin/env bash
# The release build of `haapi` and `haapi-bench`: the plain Swift release build with the Swift runtime and
# Foundation linked statically (the documented `--static-swift-stdlib`), so the binary runs on a Linux machine
# without a Swift toolchain. This is the build the README tells users to make and the one scripts/bench.sh
# measures.
#   scripts/release.sh [scratch-path]          (default .build-release; prints the binary folder last)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Both are products of the workbench package (Workbench/), which builds the SDK beside it by path. The SDK's
# Linux transport is FoundationNetworking's URLSession, whose static library calls libcurl: the link needs
# libcurl's development file (Debian's libcurl4-openssl-dev), and the binaries load the system's libcurl.so.4 at
# run time, with libc, libstdc++, zlib and SQLite.
source "$root/scripts/lib/setup.sh"
[ "$(uname -s)" != Linux ] || [ -e /usr/lib/"$(uname -m)"-linux-gnu/libcurl.so ] || need_packages libcurl4-openssl-dev >&2
scratch="${1:-$root/.build-release}"
flags=(-c release --static-swift-stdlib --package-path "$root/Workbench" --scratch-path "$scratch")
echo "release: swift build ${flags[*]} (a cold build takes 10 minutes or more)" >&2
swift build "${flags[@]}" --product haapi >/dev/null
swift build "${flags[@]}" --product haapi-bench >/dev/null
swift build "${flags[@]}" --show-bin-path
