#!/usr/bin/env bash
# Builds the repository as it was at a commit into a separate folder, for a benchmark's "before"
# (npm run bench:transport -- <folder>). Uses this checkout's node_modules (so the commit must
# need no package this checkout lacks).   usage: scripts/build-at.sh <commit> <folder>
set -euo pipefail
rev="${1:?usage: scripts/build-at.sh <commit> <folder>}"
dir="${2:?usage: scripts/build-at.sh <commit> <folder>}"
here="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$dir"
mkdir -p "$dir"
git -C "$here" archive "$rev" | tar -xf - -C "$dir"
ln -sfn "$here/node_modules" "$dir/node_modules"
(cd "$dir" && bash scripts/build.sh >/dev/null)
echo "built $rev in $dir"
