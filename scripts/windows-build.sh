#!/usr/bin/env bash
# Cross-builds the Windows console with cgo and MinGW-w64 (make windows):
#   bin/windows/reviewer.exe       the console (window and command line),
#                                  with its icon and version resources
#   bin/windows/reviewer-pdf.exe   its PDF renderer, found beside it
#   bin/windows/trustscreen-reviewer-VERSION-windows-amd64.zip
#                                  both, with install.cmd and uninstall.cmd:
#                                  a per-user install, no admin rights
# The version is FyneApp.toml's. The resources are compiled by MinGW's
# windres into a .syso that the go command links; it is put beside main.go
# for the build only (and named *_windows_amd64.syso, so no other build
# would ever link it).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${GO:=go}"
export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++
out=bin/windows
mkdir -p "$out"
work=$(mktemp -d)
syso=(zz_resources_windows_amd64.syso cmd/reviewer-pdf/zz_resources_windows_amd64.syso)
trap 'rm -rf "$work" "${syso[@]}"' EXIT

version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
build=$(sed -n 's/^Build *= *\([0-9]*\)/\1/p' FyneApp.toml)
IFS=. read -r major minor patch <<<"$version"
icon=$(sed -n 's/^Icon *= *"\(.*\)"/\1/p' FyneApp.toml)
convert "$icon" -define icon:auto-resize=256,64,48,32,16 "$work/reviewer.ico"

resources() { # resources NAME DESCRIPTION ICON-LINE OUT.syso
	sed -e "s|@ICON@|$3|" -e "s|@NAME@|$1|g" -e "s|@DESCRIPTION@|$2|" -e "s|@VERSION@|$version|g" -e "s|@BUILD@|$build|g" \
		-e "s|@MAJOR@|${major:-0}|g" -e "s|@MINOR@|${minor:-0}|g" -e "s|@PATCH@|${patch:-0}|g" \
		packaging/windows/reviewer.rc.in >"$work/$1.rc"
	x86_64-w64-mingw32-windres -I "$work" -O coff -o "$4" "$work/$1.rc"
}
resources reviewer "TrustScreen Reviewer" "1 ICON \"$work/reviewer.ico\"" "${syso[0]}"
resources reviewer-pdf "TrustScreen Reviewer: the PDF renderer" "" "${syso[1]}"

# A console program, not -H windowsgui: reviewer.exe is the command line
# too, and a GUI program's output goes nowhere in a terminal.
"$GO" build -o "$out/reviewer.exe" .
"$GO" build -o "$out/reviewer-pdf.exe" ./cmd/reviewer-pdf

zip=$out/trustscreen-reviewer-$version-windows-amd64.zip
rm -f "$zip"
cp packaging/windows/install.cmd packaging/windows/uninstall.cmd "$work/"
cp "$out/reviewer.exe" "$out/reviewer-pdf.exe" "$work/"
(cd "$work" && zip -q -X "$OLDPWD/$zip" reviewer.exe reviewer-pdf.exe install.cmd uninstall.cmd)
echo "built $out/reviewer.exe, $out/reviewer-pdf.exe and $zip"
