# strace_sums.awk - per-process read/write counts and bytes, straight from
# strace text (independent of replay's parser): prints
#   PID READS READ_BYTES WRITES WRITE_BYTES
# Calls split as <unfinished ...> / <... NAME resumed> are counted once, at
# the resumed line, with the fd taken from the unfinished half.  A call is
# counted when it succeeded (result >= 0) and its fd is not a terminal or
# /dev file (-y decoration under /dev/), a /proc or /sys file (replay
# does not replay those), a pipe or socket (a decoration that is not a
# path) nor an undecorated 0/1/2.  copy_file_range and sendfile count as a
# read of their input and a write of their output (a read alone when they
# moved nothing: cp's last one, at the end of its input).
# Set -v pid=N for strace -ff files (lines carry no pid).
function kind(n) {
	if (n ~ /^(read|pread64|readv|preadv|preadv2)$/) return "r"
	if (n ~ /^(write|pwrite64|writev|pwritev|pwritev2)$/) return "w"
	if (n ~ /^(copy_file_range|sendfile|sendfile64)$/) return "c"
	return ""
}
{
	l = $0; p = pid
	if (match(l, /^\[pid +[0-9]+\] /)) {
		p = substr(l, 6, RLENGTH - 7) + 0; l = substr(l, RLENGTH + 1)
	} else if ($1 ~ /^[0-9]+$/) {               # -f -o: pid column
		p = $1 + 0; sub(/^[0-9]+ +/, "", l)
	}
	if (p == "") p = "main"
	sub(/^ *[0-9:.]+ +/, "", l)                 # timestamp
	sub(/^\[ *[0-9a-f]+\] +/, "", l)             # -n syscall number
	sub(/^\[ *[0-9a-f]+\] +/, "", l)             # -i instruction pointer
	if (l ~ /<unfinished \.\.\.>$/) { pend[p] = l; next }
	call = l
	if (match(l, /^<\.\.\. [a-z0-9_]+ resumed>/)) {
		name = substr(l, 6, RLENGTH - 14); call = pend[p] l
	} else if (match(l, /^[a-z0-9_]+\(/)) {
		name = substr(l, 1, RLENGTH - 1)
	} else next
	k = kind(name); if (k == "") next
	if (!match(call, /\) += -?[0-9]+( <[0-9.]+>)?$/)) next
	r = substr(call, RSTART, RLENGTH); sub(/^\) += /, "", r); sub(/ .*/, "", r); r += 0
	if (r < 0) next
	match(call, /\(/); a = substr(call, RSTART + 1)
	if (k == "c") {                             # in, off, out (sendfile: out, in)
		split(a, av, ", ")
		fin = name == "copy_file_range" ? av[1] : av[2]
		fout = name == "copy_file_range" ? av[3] : av[1]
		if (isfile(fin)) { nr[p]++; br[p] += r; seen[p] = 1 }
		if (r > 0 && isfile(fout)) { nw[p]++; bw[p] += r; seen[p] = 1 }
		next
	}
	if (!isfile(a)) next
	if (k == "r") { nr[p]++; br[p] += r } else { nw[p]++; bw[p] += r }
	seen[p] = 1
}
function isfile(a) {
	if (a ~ /^[0-9]+<\/(dev|proc|sys)\//) return 0   # terminal, /dev/null, /proc
	if (a ~ /^[0-9]+<[^\/]/) return 0             # pipe:[..], socket:[..]
	if (a ~ /^[012]([,)]|$)/) return 0
	return 1
}
END { for (p in seen) printf "%s %d %d %d %d\n", p, nr[p], br[p], nw[p], bw[p] }
