#!/usr/bin/env bash
# The decisions' keyboard walk (contract 1.2, issue 29): ana decides every
# item of a batch that waits for a reviewer's decision (the scored items
# the pre-screen recommended review or reject) from the keyboard, in the
# real window under Xvfb: one cleared, one rejected with a reason picked by
# typing and a comment, one escalated. Then a second console, ben's (his
# own token, cache and preferences, against the same `reviewer demo-api
# --demo --api-version 1.2` on loopback), lists what awaits his
# confirmation (Ctrl+Shift+A), opens the reject and confirms it (a, then
# Ctrl+Enter). Afterwards the command line checks, in ana's cache after a
# sync, that each item has its decision and the reject is final,
# confirmed by ben. xdotool's key and type only; a screenshot per step in
# the folder given (default: a new temporary folder).
#
#   scripts/decide-walk.sh [bin/reviewer] [shots-folder]
#
# WALK_DISPLAY, WALK_TIMEOUT and WALK_SETTLE as for keyboard-walk.sh.
set -euo pipefail
bin=$(realpath "${1:-bin/reviewer}")
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/decide-walk.XXXXXX")}
mkdir -p "$out"
out=$(realpath "$out")
limit=${WALK_TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/decide-walk-cache.XXXXXX")

n=${WALK_DISPLAY:-161}
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
	echo "decide walk: FAILED: $*" >&2
	import -window root "$out/failed.png" 2>/dev/null || true
	echo "decide walk: screenshots in $out (failed.png: the screen then)" >&2
	exit 1
}
step=0
shot() {
	step=$((step + 1))
	local f
	f=$(printf '%s/%02d-%s.png' "$out" "$step" "$1")
	import -window root "$f"
	echo "  shot $f"
}
waitfor() {
	local what=$1
	shift
	local end=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || fail "waited ${limit}s for $what"
		sleep 0.2
	done
}
settle() { sleep "${WALK_SETTLE:-1.5}"; }
key() { xdotool key --delay 120 "$@"; }
screen() { import -window root -depth 8 rgb:- | md5sum; }
# opens KEY...: the keys open a dialog; wait until the screen changed.
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

"$bin" demo-api --demo --api-version 1.2 --addr 127.0.0.1:0 >"$work/api.log" 2>&1 &
api=$!
url=""
for _ in $(seq 100); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/api.log" | head -1 || true)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || fail "demo-api did not start: $(cat "$work/api.log")"
export REVIEWER_API_URL=$url
unset REVIEWER_API_TOKEN_FILE REVIEWER_NAME REVIEWER_API_TOKEN REVIEWER_DB

# as WHO COMMAND...: the command line as ana or ben, each on a cache and
# preferences of their own.
as() {
	local who=$1
	shift
	REVIEWER_API_TOKEN=demo-token-$who-0001 REVIEWER_DB=$work/$who.db XDG_CONFIG_HOME=$work/config-$who "$@"
}
window() { # window WHO: starts WHO's window and focuses it
	as "$1" "$bin" >"$work/window-$1.log" 2>&1 &
	app=$!
	win=$(timeout "$limit" xdotool search --sync --onlyvisible --name "TrustScreen Reviewer" | head -1) || fail "no window for $1"
	xdotool windowfocus --sync "$win"
}
quit() { # quit: Ctrl+Q, and the window is gone
	key ctrl+q
	gone() { ! kill -0 "$app" 2>/dev/null; }
	waitfor "the window to quit" gone
	app=""
}
# find ID: the search opens the item's batch at the item, the focus on
# the items (Ctrl+A: the last search goes).
find() {
	opens ctrl+f
	key ctrl+a
	typed "$1"
	settle
	key Return
	settle
}
decision() { as "$1" "$bin" item "$2" --json | jq -c '.decision'; }

echo "decide walk on $display against $url"
window ana
synced() { [ "$(as ana "$bin" items --json | jq 'length')" -gt 0 ]; }
waitfor "ana's first sync" synced
settle

# The batch: the first with a scored item recommended reject and two
# recommended review, none decided.
as ana "$bin" items --json >"$work/items.json"
batch=$(jq -r '[.[] | select(.status == "scored" and (.recommendation == "review" or .recommendation == "reject"))]
	| group_by(.batch_id) | map(select((map(.recommendation) | sort) == ["reject", "review", "review"])) | first | .[0].batch_id' "$work/items.json")
[ "$batch" != null ] || fail "no batch with one item recommended reject and two recommended review"
to_reject=$(jq -r --arg b "$batch" '[.[] | select(.batch_id == $b and .status == "scored" and .recommendation == "reject")][0].id' "$work/items.json")
to_clear=$(jq -r --arg b "$batch" '[.[] | select(.batch_id == $b and .status == "scored" and .recommendation == "review")][0].id' "$work/items.json")
to_escalate=$(jq -r --arg b "$batch" '[.[] | select(.batch_id == $b and .status == "scored" and .recommendation == "review")][1].id' "$work/items.json")
echo "  batch $batch: clear $to_clear, reject $to_reject, escalate $to_escalate"

# decide WHO ID KEY REASON COMMENT STATE: opens the item, the decision's
# key, types part of a reason in the picker, Tab, the comment, Ctrl+Enter;
# waits for the decision in the cache.
decide() {
	local id=$1 k=$2 reason=$3 comment=$4 state=$5 name=$6
	find "$id"
	opens "$k"
	typed "$reason"
	key Tab
	typed "$comment"
	settle
	shot "$name-dialog-$id"
	key ctrl+Return
	decided() { decision ana "$1" | jq -e --arg s "$2" '.by == "ana" and .state == $s'; }
	waitfor "ana's $name of $id" decided "$id" "$state"
	settle
	shot "$name-done-$id"
}
decide "$to_clear" c genuine "Checked against the issuer's register." final clear
decide "$to_reject" j mrz "MRZ check digits do not match the printed number." awaiting_confirmation reject
decide "$to_escalate" e senior "Unusual issuing office: a senior reviewer should look." final escalate
quit # her window lets go of what it held

# Ben: his first sync brings ana's reject, awaiting his confirmation.
window ben
ben_synced() { decision ben "$to_reject" | jq -e '.state == "awaiting_confirmation"'; }
waitfor "ben's first sync" ben_synced
settle
key ctrl+shift+a
settle
shot awaiting-my-confirmation
find "$to_reject"
shot "awaiting-panel-$to_reject"
opens a
shot "confirm-dialog-$to_reject"
key ctrl+Return
confirmed() { decision ben "$to_reject" | jq -e '.state == "final" and .confirmed_by == "ben"'; }
waitfor "ben's confirmation of $to_reject" confirmed
settle
shot "confirmed-$to_reject"
quit

# The checks, through ana's command line after a sync.
as ana "$bin" sync >/dev/null
errors=0
check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "  ok   $what"; else echo "  FAIL $what" >&2; errors=$((errors + 1)); fi
}
echo "checks:"
is() { decision ana "$1" | jq -e "$2"; }
check "$to_clear cleared by ana (DOC_GENUINE), final" is "$to_clear" '.outcome == "clear" and .reason_code == "DOC_GENUINE" and .state == "final" and .by == "ana"'
check "$to_reject rejected by ana (MRZ_MISMATCH), confirmed by ben" is "$to_reject" '.outcome == "reject" and .reason_code == "MRZ_MISMATCH" and .state == "final" and .confirmed_by == "ben"'
check "$to_escalate escalated by ana (SENIOR_JUDGEMENT), final" is "$to_escalate" '.outcome == "escalate" and .reason_code == "SENIOR_JUDGEMENT" and .state == "final"'
comment_once() { as ana "$bin" item "$to_reject" | grep -q "MRZ check digits do not match the printed number."; }
check "the reject's comment as typed" comment_once
none_left() { as ana "$bin" items --batch "$batch" --json | jq -e '[.[] | select(.status == "scored" and (.recommendation == "review" or .recommendation == "reject") and .decision == null)] | length == 0'; }
check "every item of $batch that waited for a decision has one" none_left
outbox_empty() { [ "$(as ana "$bin" outbox --json | jq 'length')" = 0 ] && [ "$(as ben "$bin" outbox --json | jq 'length')" = 0 ]; }
check "both outboxes are empty" outbox_empty

echo "decide walk: screenshots in $out"
[ "$errors" -eq 0 ] || fail "$errors checks failed"
echo "decide walk: passed"
