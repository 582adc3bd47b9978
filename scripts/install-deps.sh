#!/bin/sh
# Installs what cgpredict needs to build and test, from Debian's packages (chromium: the HTML
# report's test in a real browser, tests/test_html.py; libxml2-dev: the HLS csynth.xml import,
# model/cgp_hls_xml.c).
set -eu
pkgs="cmake make gcc g++ binutils llvm-14-dev clang-14 libclang-14-dev libclang-rt-14-dev libomp-14-dev libcjson-dev libxml2-dev zlib1g-dev libcriterion-dev python3 python3-jsonschema chromium"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
echo "cgpredict dependencies are installed"
