#!/usr/bin/env bash
# Installs Debian packages that are missing. Arguments are COMMAND:PACKAGE pairs (installed when
# the command is missing) or a bare PACKAGE with no command (installed when dpkg lacks it, e.g. fonts).
# As root it runs apt-get (with one `apt-get update` first); otherwise it says what to install.
set -euo pipefail
missing=()
for pair in "$@"; do
  if [[ $pair == *:* ]]; then
    cmd=${pair%%:*}; pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  else
    dpkg-query -W -f='${Status}' "$pair" 2>/dev/null | grep -q "install ok installed" || missing+=("$pair")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "Dagscope needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
