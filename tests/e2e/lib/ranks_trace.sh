# ranks_trace.sh - sourced by e2e tests that need a trace whose replayed
# ranks are not 0..N-1: ranks_trace FILE writes an strace text where pid 100
# (rank 0) writes 4 KiB, pid 101 (rank 1) only reads /etc/passwd (left out
# by the default filter: rank 1 is not replayed) and pids 102-105 (ranks
# 2-5) write 64 KiB each.
ranks_trace() {
	awk 'BEGIN {
		print "100 openat(AT_FDCWD, \"out/a.dat\", O_WRONLY|O_CREAT, 0644) = 3"
		print "100 write(3, \"x\"..., 4096) = 4096"
		print "100 close(3) = 0"
		print "101 openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3"
		print "101 read(3, \"x\"..., 1024) = 1024"
		print "101 close(3) = 0"
		for (p = 102; p <= 105; p++) {
			printf "%d openat(AT_FDCWD, \"out/r%d.dat\", O_WRONLY|O_CREAT, 0644) = 3\n", p, p
			printf "%d write(3, \"x\"..., 65536) = 65536\n", p
			printf "%d close(3) = 0\n", p
		} }' >"$1"
}
