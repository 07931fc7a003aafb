#!/bin/bash
# The fixed comparison sets of issue 27 ("outputs unchanged"): every suite states-only and three pixel sets, small.
# usage: V=path/to/voebench bench/issue27_sets.sh OUTDIR   (render with the code before and after a change, then
#        python bench/compare_sets.py BEFORE AFTER)
O=$1; mkdir -p "$O"
V=${V:-.venv/bin/voebench}
for s in grasp-l1 grasp-l2 predict newton; do
  $V render $s --out "$O/states-$s" --trials 1 --states-only --workers 2 --quiet --seed 7 || echo "FAIL states $s"
done
$V render avoe --out "$O/states-avoe" --trials 6 --states-only --workers 2 --quiet --seed 7 || echo "FAIL states avoe"
L2=$(ls scenes/grasp_l2/t[0-9]*.py | xargs -n1 basename | sed 's/\.py$//' | grep -v t05 | paste -sd,)  # t05 needs 50 fps
$V render grasp-l2 --out "$O/pix-l2" --tests "$L2" --trials 1 --fps 10 --resolution 48x36 --workers 2 --quiet --seed 3 || echo "FAIL pix l2"
$V render avoe --out "$O/pix-avoe" --trials 2 --categories A,C --fps 10 --resolution 64x36 --workers 2 --quiet --seed 3 || echo "FAIL pix avoe"
$V render grasp-l1 --out "$O/pix-l1" --trials 1 --fps 10 --resolution 48x36 --workers 2 --quiet --seed 3 || echo "FAIL pix l1"
