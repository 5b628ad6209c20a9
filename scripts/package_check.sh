#!/usr/bin/env bash
# crates.io readiness of the two published packages, toolkit-macros and toolkit-llm
# (the package whose library is `toolkit`: crates.io's `toolkit` is another project).
#
# 1. `cargo package -p toolkit-macros -p toolkit-llm` packages both together
#    (cargo 1.90+): toolkit-llm's dependency on toolkit-macros is resolved against the
#    freshly packaged toolkit-macros through a local registry overlay, and each
#    .crate is unpacked and built on its own (the packaged sources, without the
#    workspace around them), so a missing file or a path-only dependency fails
#    here. The crates are named: `cargo package --workspace` also packages the
#    members marked `publish = false` (examples, tests) and fails on their
#    path-only dependencies.
# 2. `cargo publish --dry-run -p toolkit-macros`: the crate that must go first
#    passes every check of a real upload but the upload itself.
# 3. `cargo publish --dry-run -p toolkit-macros -p toolkit-llm`: the same for both, in
#    publishing order, toolkit-llm against the toolkit-macros just packaged.
# 4. The licence files and the README are inside both .crate files.
# 5. Feature `oauth-rustls` builds (see the step).
# 6. A crate outside the workspace, as a user starts one, builds and runs the
#    quickstart against the two .crate files: once with `toolkit-llm = "0.1"` and
#    once renamed, `tk = { package = "toolkit-llm", .. }` (see the step).
#
# Needs the crates.io index (as any build does); uploads nothing. Extra arguments
# go to every cargo command (`--allow-dirty` on a working copy with changes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Step 3 packages and verifies both crates again, so steps 1 and 2 only package
# and check the manifest (one verify build of toolkit, not three, on CI's 2 cores).
echo "== cargo package -p toolkit-macros -p toolkit-llm"
cargo package --no-verify -p toolkit-macros -p toolkit-llm "$@"

echo "== cargo publish --dry-run -p toolkit-macros"
cargo publish --dry-run --no-verify -p toolkit-macros "$@"

echo "== cargo publish --dry-run -p toolkit-macros -p toolkit-llm"
cargo publish --dry-run -p toolkit-macros -p toolkit-llm "$@"

metadata="$(cargo metadata --format-version 1 --no-deps)"
version="$(python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "toolkit-llm"))' <<<"$metadata")"
# Where cargo package wrote the .crate files: under CARGO_TARGET_DIR when set.
target="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")"
for crate in toolkit-llm toolkit-macros; do
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
listing="$(tar -tzf "$target/package/toolkit-llm-$version.crate")"
if ! grep -qx "toolkit-llm-$version/README.md" <<<"$listing"; then
    echo "package_check: toolkit-llm-$version.crate lacks README.md" >&2
    exit 1
fi
# 5. The `oauth-rustls` feature (HTTPS to authorization servers: reqwest's
#    rustls, aws-lc-rs) builds: nothing else enables it, and `cargo test
#    --workspace` builds `oauth` without TLS.
echo "== cargo check -p toolkit-llm --features oauth-rustls"
cargo check -p toolkit-llm --features oauth-rustls

# 6. A user's crate, outside this workspace, against the packaged crates: the two
#    .crate files unpacked into a temporary folder and put in place of crates.io's
#    through `[patch.crates-io]` (neither name need exist there), so what is built
#    is what would be uploaded, not the workspace's sources. Two binaries, one per
#    way of depending:
#    - `package-check-plain`: `toolkit-llm = "0.1"`, whose extern name is the
#      library's, `toolkit` (not the `toolkit_llm` cargo's key would give);
#    - `package-check-renamed`: `tk = { package = "toolkit-llm", version = "0.1" }`,
#      the source's `toolkit::` written `tk::`; nothing named `toolkit` is in scope,
#      so a `#[tool]` that did not read the name from Cargo.toml fails to build here.
#    Both run the README's quickstart (`examples/src/bin/quickstart.rs`) and must
#    print its last answer. One build for both (toolkit-llm is compiled once), in
#    the workspace's target directory with the workspace's Cargo.lock, so the
#    third-party crates step 3's verify build compiled are reused: the step
#    compiles 5 crates (toolkit-macros, toolkit-llm, futures-executor, the two
#    binaries) in 11-15 s on 2 busy cores (2026-11-29).
echo "== a crate outside the workspace depends on the packaged toolkit-llm"
outside="$(mktemp -d)"
trap 'rm -rf "$outside"' EXIT
mkdir -p "$outside/crates" "$outside/package-check-plain/src" "$outside/package-check-renamed/src"
# `--touch`: cargo writes every file of a .crate with one fixed old mtime, and the
# unpacked crates' paths relative to this temporary workspace are the same every
# run, so cargo would take the previous run's build of them as fresh whatever
# changed; files dated now are always rebuilt (about 10 s).
for crate in toolkit-llm toolkit-macros; do
    tar -xzf "$target/package/$crate-$version.crate" -C "$outside/crates" --touch
done
cat >"$outside/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["package-check-plain", "package-check-renamed"]

[workspace.dependencies]
serde = { version = "1", features = ["derive"] }
schemars = "1.2"
serde_json = "1"
futures-executor = "0.3"

[patch.crates-io]
toolkit-llm = { path = "crates/toolkit-llm-$version" }
toolkit-macros = { path = "crates/toolkit-macros-$version" }
TOML
outside_crate() { # name, dependency line
    cat >"$outside/$1/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$2
serde.workspace = true
schemars.workspace = true
serde_json.workspace = true
futures-executor.workspace = true
TOML
}
outside_crate package-check-plain 'toolkit-llm = "0.1"'
outside_crate package-check-renamed 'tk = { package = "toolkit-llm", version = "0.1" }'
cp examples/src/bin/quickstart.rs "$outside/package-check-plain/src/main.rs"
sed 's/\btoolkit::/tk::/g' examples/src/bin/quickstart.rs >"$outside/package-check-renamed/src/main.rs"
if grep -q '\btoolkit::' "$outside/package-check-renamed/src/main.rs"; then
    echo "package_check: the renamed quickstart still names toolkit" >&2
    exit 1
fi
cp Cargo.lock "$outside/Cargo.lock"
outside_started=$SECONDS
CARGO_TARGET_DIR="$target" cargo build --manifest-path "$outside/Cargo.toml" --workspace
for binary in package-check-plain package-check-renamed; do
    output="$("$target/debug/$binary")"
    if ! grep -q '"result": "deleted note 1"' <<<"$output"; then
        echo "package_check: the quickstart built as \`$binary\` did not delete its note:" >&2
        echo "$output" >&2
        exit 1
    fi
done
echo "== the outside crate built and ran both ways in $((SECONDS - outside_started)) s"

echo "package_check: toolkit-llm and toolkit-macros $version package, verify, pass publish --dry-run, and serve a crate outside the workspace"
