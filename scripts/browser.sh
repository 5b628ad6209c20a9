#!/usr/bin/env bash
# Makes sure a headless Chromium and its WebDriver are installed, from Debian's
# packages (`chromium`, `chromium-driver`), and prints where they are:
#
#   chromium=/usr/bin/chromium
#   chromedriver=/usr/bin/chromedriver
#
# Installing needs root (apt-get). Without root and without the packages it exits
# with status 3 and one line saying what to install, so a test on a developer's
# machine can say so; under CI=true the calling test fails instead of skipping.
set -euo pipefail

find_chromium() {
    command -v chromium || command -v chromium-browser || true
}
find_driver() {
    command -v chromedriver || { [[ -x /usr/lib/chromium/chromedriver ]] && echo /usr/lib/chromium/chromedriver; } || true
}

chromium="$(find_chromium)"
driver="$(find_driver)"
if [[ -z "$chromium" || -z "$driver" ]]; then
    if [[ "$(id -u)" != 0 ]]; then
        echo "Chromium and its WebDriver are missing: install Debian's packages 'chromium' and 'chromium-driver' (as root: apt-get install chromium chromium-driver)" >&2
        exit 3
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2
    chromium="$(find_chromium)"
    driver="$(find_driver)"
fi
[[ -n "$chromium" && -n "$driver" ]] || { echo "chromium or chromedriver is still missing after apt-get install" >&2; exit 1; }
echo "chromium=$chromium"
echo "chromedriver=$driver"
