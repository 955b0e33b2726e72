# Sourced by the benchmarks that time one command at a time.

# best CMD...: the best wall time of RUNS runs of CMD (its output dropped), in seconds. Read
# from bash's clock when there is one (EPOCHREALTIME: no process of its own), else from
# date(1), whose start-up (a few ms) then counts in every time.
best() {
    b=999
    i=0
    while [ $i -lt "$RUNS" ]; do
        if [ -n "${EPOCHREALTIME:-}" ]; then
            s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; e=$EPOCHREALTIME
        else
            s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        fi
        b=$(echo "t = $e - $s; if (t < $b) t else $b" | bc -l)
        i=$((i + 1))
    done
    echo "$b"
}
