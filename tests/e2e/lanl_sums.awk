# lanl_sums.awk - bytes per traced process of LANL-Trace files, read
# independently of replay's parser: for each file HOST.PID.trace, the sum of
# the return values of SYS_read/SYS_write (and their p-variants) that
# succeeded.  Prints "HOSTSHORT.PID READ_BYTES WRITE_BYTES" per file.
FNR == 1 {
	n = split(FILENAME, parts, "/"); base = parts[n]
	k = split(base, f, "."); name = f[1] "." f[k - 1]
	names[name] = 1; rd[name] += 0; wr[name] += 0
}
/ SYS_(p?read|pread64)\(/ || / SYS_(p?write|pwrite64)\(/ {
	if (match($0, /\) += +-?[0-9]+/) == 0) next
	v = substr($0, RSTART, RLENGTH); sub(/^\) += +/, "", v); v += 0
	if (v <= 0) next
	if ($0 ~ /SYS_p?read|SYS_pread64/) rd[name] += v; else wr[name] += v
}
END { for (x in names) print x, rd[x], wr[x] }
