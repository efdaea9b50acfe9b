#!/usr/bin/env bash
# The Windows build under Wine, as a reviewer would use it (make
# windows-check):
#   0. the zip unpacked and install.cmd run (per user, no admin rights);
#      everything below runs the installed copy, and uninstall.cmd ends it;
#   1. reviewer.exe --version names FyneApp.toml's version;
#   2. against the reference service on loopback (served by the Linux
#      build, demo-api), with the cache where Windows keeps it (%AppData%):
#      a sync, items --json, a re-submission paid once (the service counts
#      one more analysis of the item, and a second re-submission is refused
#      without a call), a flush that leaves the outbox empty, an export to a
#      CSV with a row per item; a PDF whose text is in a font it does not
#      embed drawn by render with a CJK font in C:\windows\Fonts; login, me
#      and logout through the Credential Manager; wipe refused while the
#      window holds the cache;
#   3. the window (reviewer.exe, on the reference service and the cache of
#      step 2) under the check's Xvfb, the display of every Wine process
#      of the check: it appears, and a
#      screenshot of it is written into the folder given (default: a new
#      temporary folder) and said, to be looked at.
# Exits non-zero on the first miss.
#
#   scripts/windows-check.sh [bin/reviewer] [bin/windows] [shots-folder]
#
# Wine's prefix is bin/wine-prefix (WINDOWS_PREFIX), made on first use, with
# a test-only bcryptprimitives.dll built from packaging/windows/wine: Go's
# runtime needs it and Wine 8.0 has none (real Windows 10 and later do).
# Nothing is written into the system's Wine or the user's ~/.wine.
# WINDOWS_DISPLAY picks the Xvfb display (default: the first free from 171);
# WINDOWS_TIMEOUT bounds each wait (seconds, default 120).
set -euo pipefail
cd "$(dirname "$0")/.."
lin=$(realpath "${1:-bin/reviewer}")
win=$(realpath "${2:-bin/windows}")
shots=${3:-$(mktemp -d "${TMPDIR:-/tmp}/windows-check.XXXXXX")}
mkdir -p "$shots"
shots=$(realpath "$shots")
limit=${WINDOWS_TIMEOUT:-120}
version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)

export WINEPREFIX=$(realpath -m "${WINDOWS_PREFIX:-bin/wine-prefix}") WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine)
[ -x "$wineserver" ] || wineserver=$(command -v wineserver)

xvfb="" api="" app=""
work=$(mktemp -d "${TMPDIR:-/tmp}/windows-check-work.XXXXXX")
cleanup() {
	for p in $app $api $xvfb; do kill "$p" 2>/dev/null || true; done
	"$wineserver" -k 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "windows check: FAILED: $*" >&2; exit 1; }
ok() { echo "windows check: ok: $*"; }
waitfor() { # waitfor DESCRIPTION COMMAND...: at most $limit seconds
	local what=$1
	shift
	local end=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || fail "waited ${limit}s for $what"
		sleep 0.2
	done
}

# The test prefix, and the shim in its system32.
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	mkdir -p "$WINEPREFIX"
	DISPLAY= "$wine" wineboot -i >/dev/null 2>&1 || fail "wineboot -i in $WINEPREFIX"
	"$wineserver" -w
fi
# One display for every Wine process of the check, from the first. Wine
# makes a prefix's desktop with the display of the process that started
# its wineserver, and the server outlives that process by a few seconds:
# a window opened on another display while it lives fails in glfwInit
# ("Failed to create helper window"). So no server is left from before
# (the caller's, with its own DISPLAY), and the Xvfb the window will use
# is the display of every command below.
"$wineserver" -k 2>/dev/null || true
"$wineserver" -w 2>/dev/null || true
d=${WINDOWS_DISPLAY:-171}
if [ -z "${WINDOWS_DISPLAY:-}" ]; then
	while [ -e "/tmp/.X$d-lock" ] || [ -e "/tmp/.X11-unix/X$d" ]; do d=$((d + 1)); done
fi
Xvfb ":$d" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
export DISPLAY=:$d
waitfor "Xvfb on :$d" xdpyinfo
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
	x86_64-w64-mingw32-gcc -shared -O2 -o "$sys32/bcryptprimitives.dll" \
		packaging/windows/wine/bcryptprimitives.c packaging/windows/wine/bcryptprimitives.def -lbcrypt ||
		fail "building the bcryptprimitives shim"
fi

# 0. Installed from the zip as a reviewer does: install.cmd, no admin
# rights, into %LOCALAPPDATA%\Programs; everything below runs that copy.
zip=$(ls "$win"/trustscreen-reviewer-"$version"-windows-amd64.zip 2>/dev/null) || fail "no zip in $win (make windows)"
mkdir "$work/zip"
unzip -q "$zip" -d "$work/zip" || fail "unzip $zip"
winpath() { "$wine" winepath -w "$1" 2>/dev/null | tr -d '\r'; }
localdata=$(find "$WINEPREFIX/drive_c/users" -maxdepth 3 -type d -path '*/AppData/Local' | head -1)
installed="$localdata/Programs/TrustScreen Reviewer"
rm -rf "$installed"
"$wine" cmd /c "$(winpath "$work/zip/install.cmd")" >"$work/install.out" 2>&1 ||
	fail "install.cmd: $(tr -d '\r' <"$work/install.out")"
exe=$installed/reviewer.exe
[ -f "$exe" ] && [ -f "$installed/reviewer-pdf.exe" ] || fail "install.cmd put no reviewer.exe and reviewer-pdf.exe in $installed"
ok "install.cmd installed both programs in %LOCALAPPDATA%\Programs\TrustScreen Reviewer"
rv() { "$wine" "$exe" "$@"; }

# 1. The version, of the installed copy.
out=$(rv --version) || fail "reviewer.exe --version: $out"
case $out in "TrustScreen Reviewer $version (build "*) ok "--version: $out" ;; *) fail "reviewer.exe --version said: $out" ;; esac

# 1b. Unit tests built for Windows, where they build there: the renderer
# ends when its stdin ends; a private file's ACL (skipped under Wine, which
# keeps no ACLs).
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "${GO:-go}" test -c -o "$work/pdf.test.exe" ./cmd/reviewer-pdf/ || fail "building cmd/reviewer-pdf's tests for Windows"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "${GO:-go}" test -c -o "$work/safefile.test.exe" ./internal/safefile/ || fail "building internal/safefile's tests for Windows"
for t in pdf safefile; do
	"$wine" "$work/$t.test.exe" -test.v >"$work/$t.test.out" 2>&1 || fail "$t tests under Wine: $(tail -20 "$work/$t.test.out")"
	ok "$t tests: $(grep -cE '^--- (PASS|SKIP)' "$work/$t.test.out") run, $(grep -c '^--- SKIP' "$work/$t.test.out") skipped under Wine"
done

# 2. Against the reference service on loopback, from a cache in %AppData%.
appdata=$(find "$WINEPREFIX/drive_c/users" -maxdepth 3 -type d -path '*/AppData/Roaming' | head -1)
[ -n "$appdata" ] || fail "no AppData\\Roaming in $WINEPREFIX"
rm -rf "$appdata/trustscreen-reviewer" # a reviewer's first day
"$lin" demo-api --demo --addr 127.0.0.1:0 >"$work/api.log" 2>&1 &
api=$!
url=""
for _ in $(seq 100); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/api.log" | head -1 || true)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || fail "demo-api did not start: $(cat "$work/api.log")"
export REVIEWER_API_URL=$url REVIEWER_API_TOKEN=demo-token-ana-0001
unset REVIEWER_DB REVIEWER_API_TOKEN_FILE REVIEWER_NAME
# The service's side: what it says of an item now (attempt: how many
# analyses it ran, each one paid).
service() { curl -sf -H "Authorization: Bearer $REVIEWER_API_TOKEN" "$url/v1/items/$1"; }

rv sync >"$work/sync.out" 2>&1 || fail "sync: $(cat "$work/sync.out")"
[ -f "$appdata/trustscreen-reviewer/cache.db" ] || fail "sync made no cache in %AppData%\\trustscreen-reviewer"
ok "sync into %AppData%\\trustscreen-reviewer\\cache.db"

rv items --json >"$work/items.json" || fail "items --json"
n=$(jq 'length' "$work/items.json") || fail "items --json is not JSON: $(head -c 300 "$work/items.json")"
[ "$n" -gt 0 ] || fail "items --json: no items after the sync"
ok "items --json: $n items"

id=$(jq -r '[.[] | select(.next_action == "resubmit")][0].id // empty' "$work/items.json")
[ -n "$id" ] || fail "no item to re-submit"
before=$(service "$id" | jq '.attempt') || fail "the service's view of $id"
rv resubmit "$id" >"$work/resubmit.out" 2>&1 || fail "resubmit $id: $(cat "$work/resubmit.out")"
set +e
rv resubmit "$id" >"$work/resubmit2.out" 2>&1
second=$?
set -e
[ "$second" -ne 0 ] || fail "a second re-submission of $id was accepted: $(cat "$work/resubmit2.out")"
rv flush >"$work/flush.out" 2>&1 || fail "flush: $(cat "$work/flush.out")"
after=$(service "$id" | jq '.attempt')
[ "$after" = $((before + 1)) ] || fail "the service ran $id's analysis $((after - before)) times, want once (attempt $before, then $after)"
rv item "$id" --json >"$work/item.json" || fail "item $id --json"
jq -e '[.actions[] | select(.kind == "resubmit")] | length == 1 and .[0].state == "done"' "$work/item.json" >/dev/null ||
	fail "item $id: not one done re-submission: $(jq -c '.actions' "$work/item.json")"
ok "resubmit $id: paid once (attempt $before then $after; the second refused, exit $second)"

rv outbox --json >"$work/outbox.json" || fail "outbox --json"
[ "$(jq 'if type == "array" then length else ([.actions[]?, .notes[]?] | length) end' "$work/outbox.json")" = 0 ] ||
	fail "the outbox is not empty after the flush: $(head -c 300 "$work/outbox.json")"
ok "flush: the outbox is empty"

rm -f "$WINEPREFIX/drive_c/items.csv"
rv export --csv 'C:\items.csv' >"$work/export.out" 2>&1 || fail "export: $(cat "$work/export.out")"
rows=$(tr -d '\r' <"$WINEPREFIX/drive_c/items.csv" | wc -l)
[ "$rows" -eq $((n + 1)) ] || fail "export: $rows lines in C:\\items.csv, want $((n + 1)) (a header and $n items)"
ok "export --csv C:\\items.csv: a header and $n rows"

# A PDF whose Japanese text is in a font it does not embed (pdf.js's
# noembed-eucjp.pdf): with a CJK font installed in Windows' fonts folder
# (Debian's fonts-wqy-microhei, copied into the prefix's C:\windows\Fonts),
# reviewer render draws the text from it (the console finds %WINDIR%\Fonts
# and hands it to the renderer, docs/documents.md) and says the font was
# substituted. Poppler draws 2666 dark pixels of it at 150 dpi.
cjk=$(ls /usr/share/fonts/truetype/wqy/*.tt[cf] 2>/dev/null | head -1) ||
	true
[ -n "$cjk" ] || fail "no CJK font to install in the prefix (fonts-wqy-microhei)"
cp "$cjk" "$WINEPREFIX/drive_c/windows/Fonts/"
cp internal/document/testdata/pdfs/noembed-eucjp.pdf "$WINEPREFIX/drive_c/noembed-eucjp.pdf"
rm -f "$WINEPREFIX/drive_c/noembed-eucjp.png"
rv render 'C:\noembed-eucjp.pdf' --out 'C:\noembed-eucjp.png' --full >"$work/render.out" 2>&1 ||
	fail "render of a PDF: $(cat "$work/render.out")"
grep -q 'does not include a font its text uses' "$work/render.out" ||
	fail "render did not say a font was substituted: $(cat "$work/render.out")"
dark=$(convert "$WINEPREFIX/drive_c/noembed-eucjp.png" -colorspace Gray -threshold 50% -negate -format '%[fx:round(mean*w*h)]' info:)
[ "$dark" -gt 1500 ] || fail "render drew $dark dark pixels of noembed-eucjp.pdf's Japanese text with $(basename "$cjk") in C:\windows\Fonts, want poppler's 2666 or so"
ok "render drew a PDF's text in a font it does not embed from C:\\windows\\Fonts\\$(basename "$cjk"): $dark dark pixels"

# The keyring: the token kept by login in Windows' Credential Manager
# (Wine's), used by a command with no token in its environment, and
# removed by logout.
(
	unset REVIEWER_API_TOKEN
	echo "demo-token-ana-0001" | rv login >"$work/login.out" 2>&1 || fail "login: $(cat "$work/login.out")"
	rv me >"$work/me.out" 2>&1 || fail "me after login: $(cat "$work/me.out")"
	grep -q 'from the screening service' "$work/me.out" || fail "me did not ask the service with the kept token: $(cat "$work/me.out")"
	rv logout >"$work/logout.out" 2>&1 || fail "logout: $(cat "$work/logout.out")"
	rv me >"$work/me2.out" 2>&1 || true
	grep -q 'UNAUTHENTICATED' "$work/me2.out" || fail "the token is still used after logout: $(cat "$work/me2.out")"
)
ok "login keeps the token in the Credential Manager, a command uses it, logout removes it"

# 3. The window, under Xvfb; wipe is refused while it holds the cache.
rv >"$work/window.log" 2>&1 &
app=$!
wid=$(timeout "$limit" xdotool search --sync --onlyvisible --name "TrustScreen Reviewer" | head -1) ||
	fail "no window within ${limit}s; its log: $(tr -d '\r' <"$work/window.log" | head -60)"
ok "the window is up (X window $wid)"
set +e
rv wipe --yes >"$work/wipe.out" 2>&1
wiped=$?
set -e
[ "$wiped" -eq 8 ] || fail "wipe while the window is open: exit $wiped, want 8: $(cat "$work/wipe.out")"
[ -f "$appdata/trustscreen-reviewer/cache.db" ] || fail "wipe removed the cache under an open window"
ok "wipe refused while the window holds the cache (exit 8)"
# The window's first frames (software GL under Wine): more than a few
# colours on the screen; then time for its first sync to be drawn.
drawn() { [ "$(import -window root -depth 8 png:- | convert - -format '%k' info:)" -gt 16 ]; }
waitfor "the window to draw" drawn
sleep "${WINDOWS_SETTLE:-5}"
import -window root "$shots/windows-window.png"
colours=$(convert "$shots/windows-window.png" -format '%k' info:)
ok "the window drew $colours colours: look at $shots/windows-window.png"
# The window ends (Wine's own processes in this prefix with it: Windows
# does not delete a running program), then uninstall.cmd.
kill "$app" 2>/dev/null || true
wait "$app" 2>/dev/null || true
app=""
"$wineserver" -k 2>/dev/null || true
"$wineserver" -w 2>/dev/null || true
"$wine" cmd /c "$(winpath "$work/zip/uninstall.cmd")" >"$work/uninstall.out" 2>&1 || fail "uninstall.cmd: $(tr -d '\r' <"$work/uninstall.out")"
[ ! -e "$exe" ] || fail "uninstall.cmd left $exe"
ok "uninstall.cmd removed them"
echo "windows check: passed"
