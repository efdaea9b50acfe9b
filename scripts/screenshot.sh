#!/usr/bin/env bash
# Runs `reviewer --demo` under Xvfb and writes screenshots of the window into
# the given folder: an error item selected (re-submit offered), a scored
# item selected, an error that needs a new file, the shortcut sheet, the
# whole window at 800x600 with the panel shown, and ageing (an item awaiting
# its file, overdue, with the bands beside the scores). SHOT_DISPLAY picks
# the Xvfb display number (default 97).
set -euo pipefail
bin=${1:-bin/reviewer}
out=${2:-docs}
mkdir -p "$out"
display=:${SHOT_DISPLAY:-97}
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=""
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
export DISPLAY=$display
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
"$bin" --demo >/dev/null 2>&1 &
app=$!
# Wait for the window, then for the first sync to land (the demo answers
# in about 100 ms; rendering with software GL on a loaded machine takes
# several seconds more).
win=$(xdotool search --sync --onlyvisible --name "TrustScreen Reviewer" | head -1)
sleep "${SHOT_WAIT:-10}"
shot() { import -window root "$out/$1"; echo "wrote $out/$1"; }
shot screenshot-error.png          # newest batch, first item: a retryable error
xdotool key Down; sleep 2
shot screenshot-scored.png         # next item: scored
xdotool key Down; sleep 2
shot screenshot-new-file.png       # next item: needs a new file
xdotool type '?'; sleep 2
shot screenshot-shortcuts.png      # the sheet of every key
xdotool key Escape; sleep 0.5
xdotool windowsize "$win" 800 600; sleep 2
import -window "$win" "$out/screenshot-800x600.png"; echo "wrote $out/screenshot-800x600.png"
xdotool windowsize "$win" 1280 800; sleep 2
xdotool key Down Down; sleep 2
shot screenshot-ageing.png         # fifth item: awaiting its file, overdue
