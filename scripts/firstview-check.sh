#!/bin/sh
# firstview-check.sh FILE: the viewer's first view of a 10 MiB JPEG against
# its target, from `go test -bench FirstView -count 5` output: the median
# of BenchmarkFirstView under FIRSTVIEW_TARGET_MS (300), and beside it the
# floor's (the standard library's decode and scale of the same file).
# Then a progressive photo's first picture (the 1/8 picture of its first
# scans, enlarged to the view, which the viewer shows while it decodes the
# rest) against its own full decode: a target too. Exits 1 when either
# misses.
set -eu
f=$1
target=${FIRSTVIEW_TARGET_MS:-300}
median() { grep -E "^Benchmark$1(-[0-9]+)?[[:space:]]" "$f" | awk '{print $3}' | sort -n | awk '{v[NR]=$1} END{if (NR==0) exit 1; print v[int((NR+1)/2)]}'; }
ours=$(median FirstView) || { echo "first view: no BenchmarkFirstView runs in $f"; exit 1; }
floor=$(median FirstViewFloor) || floor=0
ms() { awk -v n="$1" 'BEGIN{printf "%.0f", n/1e6}'; }
ratio=$(awk -v a="$ours" -v b="$floor" 'BEGIN{if (b>0) printf "%.2fx", a/b; else print "-"}')
line="first view of a 10 MiB JPEG: $(ms "$ours") ms (median of 5), floor $(ms "$floor") ms, $ratio; target < $target ms"
status=0
if awk -v a="$ours" -v t="$target" 'BEGIN{exit !(a < t*1e6)}'; then
	echo "$line: ok"
else
	echo "$line: MISSED"
	status=1
fi
# A progressive photo's first view against its own full decode: at most
# FIRSTVIEW_PROGRESSIVE_RATIO (0.5) of it, medians of the same run.
pratio=${FIRSTVIEW_PROGRESSIVE_RATIO:-0.5}
if pfirst=$(median FirstViewProgressive) && pfull=$(median FullDecodeProgressive); then
	pr=$(awk -v a="$pfirst" -v b="$pfull" 'BEGIN{printf "%.2f", a/b}')
	pline="first picture of the same photo, progressive: $(ms "$pfirst") ms, its full decode $(ms "$pfull") ms, ${pr}x; target <= ${pratio}x"
	if awk -v r="$pr" -v t="$pratio" 'BEGIN{exit !(r <= t)}'; then
		echo "$pline: ok"
	else
		echo "$pline: MISSED"
		status=1
	fi
else
	echo "first view of a progressive photo: not measured (jpegtran missing?)"
	status=1
fi
exit $status
