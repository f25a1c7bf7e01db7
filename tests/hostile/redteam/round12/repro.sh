#!/usr/bin/env bash
# Round 12: every BROKEN row. usage: repro.sh [OUT]   (from /work/redteam12 with its .venv active; ~2 minutes)
set -u
OUT=${1:-/tmp/rt12-verify}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
echo "=== row 1: a hidden call's jail outlives the phase lock (hidden ids -> another learner's public feedback)"
bash "$HERE/outlive.sh" "$OUT"
echo "=== row 1, control: the same batch without the sender's code"
bash "$HERE/outlive.sh" "$OUT" control
echo "=== row 3: one submission holds its main jail's memory while a references jail of its own takes another cap"
bash "$HERE/twojails.sh" "$OUT"
echo "=== row 2 (observation): one learner's slow public pass stalls the other worker at its hidden pass"
bash "$HERE/stall.sh" "$OUT"
