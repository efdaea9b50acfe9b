#!/bin/sh
# Adds the PDF renderer (reviewer-pdf) to the desktop bundle Fyne's packager
# made around the console: the console looks for it beside its own
# executable, so the bundle's Makefile installs (and removes) it beside
# reviewer in every one of its targets.
#   scripts/bundle-renderer.sh BUNDLE.tar.xz RENDERER
set -eu
bundle=$1
renderer=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$bundle" -C "$work"
root="$work/reviewer"
install -m 0755 "$renderer" "$root/usr/local/bin/reviewer-pdf"
# After each line that installs or removes bin/$(Exec), the same for
# reviewer-pdf.
awk '{ print }
/^\t(install -Dm00755|-rm) .*\/bin\/\$\(Exec\)$/ { gsub(/\$\(Exec\)/, "reviewer-pdf"); print }' \
	"$root/Makefile" >"$work/Makefile" && mv "$work/Makefile" "$root/Makefile"
tar -cJf "$bundle.new" -C "$work" reviewer
mv "$bundle.new" "$bundle"
