# shellcheck shell=sh
# Helpers the bench scripts share (sourced, not run): statistics of a
# space-separated list of times.
# The smallest of the list.
best() { echo "$1" | tr ' ' '\n' | grep . | sort -n | head -1; }
# Its median (of an even count, the mean of the two middle ones): printed
# beside the best, since this VM's noise can put one variant's best below
# another's.
median() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
