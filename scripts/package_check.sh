#!/usr/bin/env bash
# crates.io readiness of the two published crates, toolkit-macros and toolkit.
#
# 1. `cargo package -p toolkit-macros -p toolkit` packages both together
#    (cargo 1.90+): toolkit's dependency on toolkit-macros is resolved against the
#    freshly packaged toolkit-macros through a local registry overlay, and each
#    .crate is unpacked and built on its own (the packaged sources, without the
#    workspace around them), so a missing file or a path-only dependency fails
#    here. The crates are named: `cargo package --workspace` also packages the
#    members marked `publish = false` (examples, tests) and fails on their
#    path-only dependencies.
# 2. `cargo publish --dry-run -p toolkit-macros`: the crate that must go first
#    passes every check of a real upload but the upload itself.
# 3. `cargo publish --dry-run -p toolkit-macros -p toolkit`: the same for both, in publishing
#    order, toolkit against the toolkit-macros just packaged.
# 4. The licence files and the README are inside both .crate files.
# 5. Feature `oauth-rustls` builds (see the step).
#
# Needs the crates.io index (as any build does); uploads nothing. Extra arguments
# go to every cargo command (`--allow-dirty` on a working copy with changes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Step 3 packages and verifies both crates again, so steps 1 and 2 only package
# and check the manifest (one verify build of toolkit, not three, on CI's 2 cores).
echo "== cargo package -p toolkit-macros -p toolkit"
cargo package --no-verify -p toolkit-macros -p toolkit "$@"

echo "== cargo publish --dry-run -p toolkit-macros"
cargo publish --dry-run --no-verify -p toolkit-macros "$@"

echo "== cargo publish --dry-run -p toolkit-macros -p toolkit"
cargo publish --dry-run -p toolkit-macros -p toolkit "$@"

metadata="$(cargo metadata --format-version 1 --no-deps)"
version="$(python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "toolkit"))' <<<"$metadata")"
# Where cargo package wrote the .crate files: under CARGO_TARGET_DIR when set.
target="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")"
for crate in toolkit toolkit-macros; do
    listing="$(tar -tzf "$target/package/$crate-$version.crate")"
    for file in LICENSE-MIT LICENSE-APACHE Cargo.toml; do
        if ! grep -qx "$crate-$version/$file" <<<"$listing"; then
            echo "package_check: $crate-$version.crate lacks $file" >&2
            exit 1
        fi
    done
done
# The listing is read whole first: `grep -q` stops early, and under pipefail tar's
# broken pipe would read as a missing file.
listing="$(tar -tzf "$target/package/toolkit-$version.crate")"
if ! grep -qx "toolkit-$version/README.md" <<<"$listing"; then
    echo "package_check: toolkit-$version.crate lacks README.md" >&2
    exit 1
fi
# 5. The `oauth-rustls` feature (HTTPS to authorization servers: reqwest's
#    rustls, aws-lc-rs) builds: nothing else enables it, and `cargo test
#    --workspace` builds `oauth` without TLS.
echo "== cargo check -p toolkit --features oauth-rustls"
cargo check -p toolkit --features oauth-rustls

echo "package_check: toolkit and toolkit-macros $version package, verify and pass publish --dry-run"
