# Sourced by the benchmarks that time one command at a time.

# best CMD...: the best wall time of RUNS runs of CMD (its output dropped), in seconds
best() {
    b=999
    i=0
    while [ $i -lt "$RUNS" ]; do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        b=$(echo "t = $e - $s; if (t < $b) t else $b" | bc -l)
        i=$((i + 1))
    done
    echo "$b"
}
