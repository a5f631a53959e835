#!/bin/sh
# calib_netfit on bad raw files: one line naming file:line, the field and
# what was expected; exit 1; never a crash.  Usage: raw_errors.sh CALIB_NETFIT
fit=$1
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
fails=0
# expect NAME 'file content' 'expected message'
expect() {
  printf '%b' "$2" > "$w/$1.csv"
  "$fit" -o "$w/out.cfg" "$w/$1.csv" > "$w/out" 2> "$w/err"
  rc=$?
  msg=$(head -1 "$w/err")
  if [ $rc -ne 1 ] || [ "$msg" != "calib_netfit: $w/$1.csv:$3" ]; then
    echo "FAIL $1: rc $rc, got: $msg"
    echo "     expected: calib_netfit: $w/$1.csv:$3"
    fails=$((fails + 1))
  else
    echo "ok   $1: $msg"
  fi
}
H='kind,scope,size,duration,load\n'
expect header '# c\nkind,size\n' '2: header: expected '"'"'kind,scope,size,duration,load'"'"', got '"'"'kind,size'"'"''
expect empty '# only comments\n' '1: header: expected '"'"'kind,scope,size,duration,load'"'"', got end of file'
expect fields "${H}pingpong,intra,8,1e-6\n" '2: expected 5 fields (kind,scope,size,duration,load), got 4'
expect kind "${H}pingpong,intra,8,1e-6,0\nping,intra,8,1e-6,0\n" "3: kind: expected pingpong, send, recv, isend or late, got 'ping'"
expect scope "${H}send,local,8,1e-6,0\n" "2: scope: expected intra or inter, got 'local'"
expect size "${H}send,intra,8.5,1e-6,0\n" "2: size: expected an integer number of bytes 0 .. 2^31-1, got '8.5'"
expect negsize "${H}send,intra,-1,1e-6,0\n" "2: size: expected an integer number of bytes 0 .. 2^31-1, got '-1'"
expect duration "${H}recv,inter,8,fast,0\n" "2: duration: expected seconds (0 .. 3600), got 'fast'"
expect nan "${H}recv,inter,8,nan,0\n" "2: duration: expected seconds (0 .. 3600), got 'nan'"
expect load "${H}isend,inter,8,1e-6,yes\n" "2: load: expected 0 or 1, got 'yes'"
# no pingpong samples at all: nothing to fit (no file:line: the whole file)
printf "${H}send,intra,8,1e-6,0\n" > "$w/nopp.csv"
"$fit" -o "$w/out.cfg" "$w/nopp.csv" 2> "$w/err"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "no intra pingpong samples" "$w/err"; then
  echo "FAIL nopp: rc $rc: $(cat "$w/err")"; fails=$((fails + 1))
else
  echo "ok   nopp: $(tail -1 "$w/err")"
fi
"$fit" "$w/missing.csv" 2> "$w/err"
if [ $? -ne 1 ] || ! grep -q "missing.csv: cannot open" "$w/err"; then echo "FAIL missing"; fails=$((fails + 1)); fi
"$fit" --bogus 2> "$w/err"
if [ $? -ne 1 ]; then echo "FAIL bad option"; fails=$((fails + 1)); fi
[ $fails -eq 0 ]
