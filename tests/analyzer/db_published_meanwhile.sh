#!/bin/sh
# db_published_meanwhile.sh FRAMEANALYZE SHIM CAPTURE1 CAPTURE2 WORKDIR
#
# Two `frameanalyze db` runs create the same new database: run B finds no OUT.db, and run A
# publishes it right after. Both must store their capture (issue 11, point 1). The shim
# (publish_gap.c) holds B in the gap between its failed open and what follows until A has
# published, so the race is the same every time; before the fix B then failed with
# "cannot open: unable to open database file" and stored nothing.
# Exit 0 pass, 1 fail (one line saying what).
set -u
fa=$1 shim=$2 cap1=$3 cap2=$4 work=$5
db=$work/meanwhile.db

rm -rf "$work" && mkdir -p "$work" || exit 1
FRC_PUBLISH_GAP_PATH=$db LD_PRELOAD=$shim "$fa" db "$cap1" -o "$db" >/dev/null 2>"$work/b.err" &
b=$!
sleep 0.3 # B has found no database and waits in the gap
"$fa" db "$cap2" -o "$db" >/dev/null 2>"$work/a.err" || {
	echo "FAIL: run A: $(cat "$work/a.err")"
	exit 1
}
wait "$b" || {
	echo "FAIL: run B (no database, then published by A meanwhile): $(cat "$work/b.err")"
	exit 1
}
n=$(sqlite3 "$db" 'SELECT count(*) FROM captures') || {
	echo "FAIL: $db cannot be read"
	exit 1
}
[ "$n" = 2 ] || {
	echo "FAIL: $n captures in $db, expected both runs' 2"
	exit 1
}
echo "both runs stored their capture"
