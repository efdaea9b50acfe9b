#!/usr/bin/env bash
# The keyboard-only walk: a new reviewer triages the newest batch, searches
# for another customer, requests a file, snoozes an item and saves a view,
# writes a note, confirms a bulk plan by Enter, saves and applies a view
# that keeps its batch, sees an item ben holds on its row, and finds the
# window synced when the service comes back after an outage,
# with xdotool's key and type only (no mouse; the window is focused once at
# the start), in the real window under Xvfb, against `reviewer demo-api
# --demo` (ana) with a cache in a temporary folder. Afterwards the command
# line reads the cache and checks that each step did what was intended:
# every item of the batch acted on, the file request's message exactly as
# typed, the snooze with its reason, the view with its name and filters,
# an empty outbox. Exits non-zero when a check fails. A screenshot of each
# step goes into the folder given (default: a new temporary folder), and
# the script says where.
#
#   scripts/keyboard-walk.sh [bin/reviewer] [shots-folder]
#
# WALK_DISPLAY picks the Xvfb display number (default: the first free one
# from 141); WALK_TIMEOUT bounds each wait for the window's work (seconds,
# default 60: software GL on a loaded machine is slow).
set -euo pipefail
bin=$(realpath "${1:-bin/reviewer}")
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/keyboard-walk.XXXXXX")}
mkdir -p "$out"
out=$(realpath "$out")
limit=${WALK_TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/keyboard-walk-cache.XXXXXX")
# The window's preferences (its size, the panel's width, the view she
# left it on, which it opens again) are the walk's own, not those of
# whoever runs it: a first start, every time.
export XDG_CONFIG_HOME=$work/config

n=${WALK_DISPLAY:-141}
if [ -z "${WALK_DISPLAY:-}" ]; then
	while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
fi
display=:$n

xvfb="" api="" app=""
cleanup() {
	for p in $app $api $xvfb; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "keyboard walk: FAILED: $*" >&2
	import -window root "$out/failed.png" 2>/dev/null || true
	echo "keyboard walk: screenshots in $out (failed.png: the screen then)" >&2
	exit 1
}
step=0
shot() { # shot NAME: the whole screen, numbered in the order of the walk
	step=$((step + 1))
	local f
	f=$(printf '%s/%02d-%s.png' "$out" "$step" "$1")
	import -window root "$f"
	echo "  shot $f"
}
# waitfor DESCRIPTION COMMAND...: runs COMMAND until it succeeds, at most
# $limit seconds (a condition on the cache, not a guess at a duration).
waitfor() {
	local what=$1
	shift
	local end=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || fail "waited ${limit}s for $what"
		sleep 0.2
	done
}
# settle: the window draws what a key did (software GL, 2 loaded cores).
settle() { sleep "${WALK_SETTLE:-1.5}"; }
key() { xdotool key --delay 120 "$@"; }
# opens KEY...: presses keys that open a dialog, and waits until the screen
# shows something new (the dialog drawn) before anything is typed into it;
# letters typed too early would reach the window, where they are commands.
screen() { import -window root -depth 8 rgb:- | md5sum; }
opens() {
	local was end
	was=$(screen)
	key "$@"
	end=$((SECONDS + limit))
	until [ "$(screen)" != "$was" ]; do
		[ $SECONDS -lt $end ] || fail "waited ${limit}s for $* to open a dialog"
		sleep 0.2
	done
	settle
}
typed() { xdotool type --delay 40 "$1"; }

Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
export DISPLAY=$display
for _ in $(seq 100); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
xdpyinfo >/dev/null 2>&1 || fail "Xvfb did not start on $display"

# The reference service on a free loopback port, with ana and ben.
"$bin" demo-api --demo --addr 127.0.0.1:0 >"$work/api.log" 2>&1 &
api=$!
url=""
for _ in $(seq 100); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/api.log" | head -1 || true)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || fail "demo-api did not start: $(cat "$work/api.log")"

export REVIEWER_API_URL=$url REVIEWER_API_TOKEN=demo-token-ana-0001 REVIEWER_DB=$work/ana.db
unset REVIEWER_API_TOKEN_FILE REVIEWER_NAME
cli() { "$bin" "$@"; }
item() { cli item "$1" --json; }

echo "keyboard walk on $display against $url, cache $REVIEWER_DB"
"$bin" >"$work/window.log" 2>&1 &
app=$!
win=$(timeout "$limit" xdotool search --sync --onlyvisible --name "TrustScreen Reviewer" | head -1) || fail "no window"
xdotool windowfocus --sync "$win" # the one focus the walk allows

# The window's first sync fills the cache; the newest batch is opened.
batch_ready() { [ "$(cli items --json | jq 'length')" -gt 0 ]; }
waitfor "the first sync" batch_ready
batch=$(cli items --json | jq -r 'max_by(.batch_id) | .batch_id')
cli items --batch "$batch" --json >"$work/batch.json"
settle
shot batch-opened

# 1. The whole batch, from its first row: r then Enter re-submits, f asks
# for a new file; after each, the selection moves by itself to the next
# item that needs her (the default preference).
first=$(jq '[.[].next_action] | map(. == "resubmit" or . == "request_file") | index(true)' "$work/batch.json")
[ "$first" != null ] || fail "batch $batch has nothing to do"
for _ in $(seq "$first"); do key Down; done
message1="Dear customer, we cannot open the file you sent."
message2="Please send the back of your card as a JPEG or a PDF."
mapfile -t todo < <(jq -r '.[] | select(.next_action == "resubmit" or .next_action == "request_file") | "\(.id) \(.next_action)"' "$work/batch.json")
requested=""
for line in "${todo[@]}"; do
	id=${line% *}
	what=${line#* }
	settle
	if [ "$what" = resubmit ]; then
		opens r
		shot "resubmit-$id"
		key Return
		done_resubmit() { item "$1" | jq -e '[.actions[] | select(.kind == "resubmit" and .state == "done")] | length == 1'; }
		waitfor "the re-submission of $id" done_resubmit "$id"
	else
		opens f
		key ctrl+a # the prefilled message goes; hers is typed
		typed "$message1"
		key Return # a new line, not a send
		typed "$message2"
		settle
		shot "file-request-$id"
		key ctrl+Return
		done_request() { item "$1" | jq -e '[.actions[] | select(.kind == "file_request" and .state == "done")] | length == 1'; }
		waitfor "the file request of $id" done_request "$id"
		requested=$id
	fi
done
settle
shot batch-done

# 2. A search: Ctrl+F, a customer, Enter opens its batch with the focus on
# its items (↓ moves there at once).
other=$(cli items --json | jq -r --arg b "$batch" '[.[] | select(.batch_id != $b and .next_action == "request_file")] | first')
[ "$other" != null ] || fail "no other batch with an item to snooze"
customer=$(jq -r .customer_ref <<<"$other")
snooze_id=$(jq -r .id <<<"$other")
opens ctrl+f # the search box takes the focus
typed "$customer"
settle
shot "search-$customer"
key Return
settle
# 3. A snooze, on the item of that batch that waits for a new file: its row.
row=$(cli items --batch "$(jq -r .batch_id <<<"$other")" --json | jq --arg id "$snooze_id" 'map(.id) | index($id)')
key Home
for _ in $(seq "$row"); do key Down; done
settle
shot "search-opened-$snooze_id"
reason="customer on holiday until Monday"
opens ctrl+shift+z
typed "$reason"
key Tab Right # the day after the first one offered
settle
shot "snooze-$snooze_id"
key Return
snoozed() { item "$1" | jq -e --arg r "$2" '[.audit[] | select((.event | startswith("snoozed until")) and .detail == $r)] | length == 1'; }
waitfor "the snooze of $snooze_id" snoozed "$snooze_id" "$reason"
settle
shot snoozed

# 4. A saved view: Ctrl+1 (needs my action, oldest first), then
# Ctrl+Shift+V and a name.
view="Mine to do"
key ctrl+1
settle
opens ctrl+shift+v
typed "$view"
shot save-view
key Return
saved() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM saved_views WHERE name = '$view'")" = 1 ]; }
waitfor "the saved view" saved
settle
shot view-saved

# 5. A note from the keyboard: m puts the focus in the open item's note
# field, the text is typed, Ctrl+Enter sends it. Longer than the field is
# wide, so that it wraps: every space must reach the service where she
# typed it (ui/wordentry.go).
note="Customer called: she promised for Monday a new scan of the whole passport page, both sides, in daylight."
key m
settle
typed "$note"
key ctrl+Return
noted() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM notes WHERE text = '$note' AND state = 'done'")" = 1 ]; }
waitfor "the note" noted
settle
shot note-sent

# 6. The bulk plan by Enter: a third batch with items that need the
# reviewer, opened by the search (Ctrl+A: the last search goes);
# Ctrl+Shift+R plans a re-submission of every item in view (nothing is
# picked), and Enter presses the plan's default button, wherever the focus
# is in the dialog.
third=$(cli items --json | jq -r --arg a "$batch" --arg b "$(jq -r .batch_id <<<"$other")" \
	'[.[] | select(.batch_id != $a and .batch_id != $b and .next_action == "resubmit")] | first')
[ "$third" != null ] || fail "no third batch with an item to re-submit"
third_batch=$(jq -r .batch_id <<<"$third")
third_customer=$(jq -r .customer_ref <<<"$third")
opens ctrl+f
key ctrl+a
typed "$third_customer"
settle
key Return
settle
opens ctrl+shift+r
shot "bulk-plan-$third_batch"
key Return
bulk_done() {
	[ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM bulk_runs WHERE kind = 'resubmit'")" = 1 ] &&
		[ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM bulk_run_actions r JOIN actions a ON a.id = r.action_id WHERE a.state <> 'done'")" = 0 ] &&
		[ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM bulk_run_actions")" -gt 0 ]
}
waitfor "the bulk re-submission in $third_batch" bulk_done
settle
shot bulk-done
key Escape
settle

# 7. A view with its batch: saved in the third batch, then applied by its
# Ctrl+N from another view, it opens that batch again (the window keeps
# the view in force in its preferences: its batch_id).
batch_view="In $third_customer"
opens ctrl+shift+v
typed "$batch_view"
key Return
view_batch() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT json_extract(spec, '$.batch_id') FROM saved_views WHERE name = '$batch_view'")" = "$1" ]; }
waitfor "the view \"$batch_view\" saved with its batch" view_batch "$third_batch"
settle
key ctrl+1
settle
# Ctrl+1 and Ctrl+2 are the built-in views, then the saved ones in order.
n_views=$(($(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM saved_views") + 2))
[ "$n_views" -le 9 ] || fail "$n_views views: the new one has no key"
key "ctrl+$n_views"
prefs=$XDG_CONFIG_HOME/fyne/com.trustscreen.reviewer/preferences.json
view_in_force() { jq -e --arg b "$1" --arg n "$2" '(.last_view | fromjson | .batch_id) == $b and .last_view_name == $n' "$prefs"; }
waitfor "the view \"$batch_view\" applied with its batch" view_in_force "$third_batch" "$batch_view"
settle
shot "view-with-batch-$third_batch"

# 8. A held item seen by its row at 1280x800 with the panel open: ben
# claims an item of the batch from the command line; after F5 ana's
# window says on its row who holds it. Needs my action is turned off from
# the keyboard (Shift+Tab from the items: code, status, Needs my action;
# Space), so that the whole batch shows.
ben() { REVIEWER_API_TOKEN=demo-token-ben-0001 REVIEWER_DB=$work/ben.db "$bin" "$@"; }
ben sync >/dev/null
held=$(cli items --batch "$third_batch" --json | jq -r '.[-1].id')
ben claim "$held" >/dev/null
key F5
held_by_ben() { item "$held" | jq -e 'tostring | test("ben")'; }
waitfor "ana's cache to see ben's claim on $held" held_by_ben
key shift+Tab shift+Tab shift+Tab space
settle
shot "held-by-ben-$held"

# The checks, through the command line.
errors=0
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "  ok   $what"; else echo "  FAIL $what" >&2; errors=$((errors + 1)); fi
}
echo "checks:"
for line in "${todo[@]}"; do
	id=${line% *}
	what=${line#* }
	if [ "$what" = resubmit ]; then
		check "$id re-submitted once, done" done_resubmit "$id"
	else
		check "$id has one file request, done" done_request "$id"
	fi
done
others_untouched() { cli items --batch "$batch" --json | jq -e '[.[] | select(.next_action == "resubmit" or .next_action == "request_file")] | length == 0'; }
check "nothing left to do in $batch" others_untouched
exact_message() { item "$1" | jq -e --arg m "$message1"$'\n'"$message2" '[.actions[] | select(.kind == "file_request")][0].message == $m'; }
[ -n "$requested" ] && check "the file request's message exactly as typed (no blank line, no tab)" exact_message "$requested"
check "$snooze_id snoozed with the reason \"$reason\"" snoozed "$snooze_id" "$reason"
view_spec() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT spec FROM saved_views WHERE name = '$view'")" = '{"needs_action":true,"sort_by":"since"}' ]; }
check "the view \"$view\" saved with needs-my-action, oldest first" view_spec
outbox_empty() { [ "$(cli outbox --json | jq 'length')" = 0 ]; }
check "the outbox is empty" outbox_empty

note_once() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT count(*) FROM notes WHERE text = '$note'")" = 1 ]; }
check "the note sent once, as typed, from the keyboard" note_once
check "the bulk re-submission planned and confirmed by Enter, every action done" bulk_done
check "the view \"$batch_view\" keeps its batch $third_batch" view_batch "$third_batch"
check "ana's cache knows ben holds $held" held_by_ben

# 9. Back online, synced: the service goes away and comes back on the same
# address; the window syncs when it answers again (its probe), not at its
# next scheduled sync (minutes away), with no key pressed.
synced_before=$(sqlite3 -readonly "$REVIEWER_DB" "SELECT value FROM sync_state WHERE key = 'last_sync'")
addr=${url#http://}
kill "$api"
wait "$api" 2>/dev/null || true
sleep 20 # the window's idle probe (15 s) finds the service gone
shot offline
"$bin" demo-api --demo --addr "$addr" >"$work/api2.log" 2>&1 &
api=$!
synced_again() { [ "$(sqlite3 -readonly "$REVIEWER_DB" "SELECT value FROM sync_state WHERE key = 'last_sync'")" != "$synced_before" ]; }
waitfor "the window to sync when the service answers again" synced_again
settle
shot back-online
check "back online: the window synced when the service answered" synced_again

# 10. Ctrl+Q quits (nothing unsent, so without a question), and Fyne's
# preferences were never read half written (a first start and a quit).
key ctrl+q
quit_done() { ! kill -0 "$app" 2>/dev/null; }
waitfor "the window to quit" quit_done
app=""
no_prefs_error() { ! grep -q "Preferences load error" "$work/window.log"; }
check "no \"Preferences load error\" from Fyne, at start or at quit" no_prefs_error

echo "keyboard walk: screenshots in $out"
[ "$errors" -eq 0 ] || fail "$errors checks failed"
echo "keyboard walk: passed"
