#!/usr/bin/env bash
# Runs `reviewer --demo` under Xvfb and writes screenshots of the window into
# the given folder: an error item selected (re-submit offered), a scored
# item selected, an error that needs a new file, the shortcut sheet, the
# whole window at 800x600 with the panel shown, ageing (an item awaiting
# its file, overdue, with the bands beside the scores), a bulk plan, an
# item another reviewer (ben, from the command line) holds, and the
# document viewer with the first file beside the replacement uploaded from
# the keyboard, the shortcut sheet by F1 right after the viewer closed,
# and Tab's way from the search to the filters. Keys only, no mouse. SHOT_DISPLAY picks the Xvfb display
# number (default 97).
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
work=$(mktemp -d)
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
# Preferences of its own: the shots show a first start, not the view the
# person running it left the window on.
export XDG_CONFIG_HOME=$work/config
"$bin" --demo >"$work/demo.log" 2>&1 &
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
xdotool key ctrl+shift+r; sleep 2
shot screenshot-bulk-plan.png      # the plan for every item in view, before anything is queued
xdotool key Escape; sleep 1

# Ben joins the demo's service from the command line (the line --demo
# printed) and holds the fourth item; after F5 ana's window says so.
join=$(grep -o 'REVIEWER_API_URL=[^ ]* REVIEWER_API_TOKEN=[^ ]*' "$work/demo.log" | head -1)
ben() { env $join REVIEWER_DB="$work/ben.db" "$bin" "$@"; }
ben sync >/dev/null
ben claim itm_0048_04 >/dev/null
xdotool key F5; sleep 3
xdotool key Home Down Down Down; sleep 2
xdotool key r; sleep 1.5           # says who holds it and until when, instead of asking
shot screenshot-team.png           # "Ben is on this until …", its actions off

# The customer's new scan of the third item (its first file, turned and
# lit differently), uploaded with u, the path typed and Enter; then v
# shows the first file beside it.
ben file itm_0048_03 --out "$work/first.png" >/dev/null
convert "$work/first.png" -background '#d9d4ca' -rotate 3 -modulate 108,80 "$work/new-scan.png"
xdotool key Home Down Down; sleep 2
xdotool key u; sleep 1.5
xdotool type --delay 20 "$work/new-scan.png"
xdotool key Return
for _ in $(seq 100); do # the paid analysis of the new file
	ben sync >/dev/null 2>&1 || true
	[ "$(ben items --batch bat_0048 --json | jq -r '.[] | select(.id == "itm_0048_03") | .status')" = scored ] && break
	sleep 0.3
done
sleep 2
xdotool key Home Down Down; sleep 2 # the selection moved on to the next item that needs her
xdotool key v; sleep 4
shot screenshot-documents.png      # the viewer: the first file beside the replacement, locked
xdotool key Escape
sleep 1
xdotool key F1; sleep 2           # the first key after the viewer closed reaches the window
shot screenshot-f1-after-viewer.png
xdotool key Escape; sleep 1
# Tab from the search follows the drawing: All batches, the batches, who
# holds, Available offline, then Needs my action (its focus ring).
xdotool key ctrl+f; sleep 1
xdotool key Tab Tab Tab Tab Tab; sleep 1.5
shot screenshot-tab-filters.png
