# opens.awk -v ROOT=DIR TRACE: an independent reading of strace -f -y text
# (not replay's parser): per pid, the successful open, openat, openat2 and
# creat calls on files beneath ROOT, in order, as "PID PATH MODE" (PATH
# without ROOT, from the -y decoration of the returned fd; MODE r, w or rw
# from the call's flags, or its unfinished half's for a resumed call).
function accmode(s) { return s ~ /O_RDWR/ ? "rw" : s ~ /O_WRONLY/ ? "w" : "r" }
{
	pid = $1
	if ($0 ~ /(openat2|openat|open|creat)\(.*<unfinished \.\.\.>/) { pend[pid] = accmode($0); next }
	if ($0 ~ /<\.\.\. (openat2|openat|open|creat) resumed>/) { m = pend[pid]; delete pend[pid] }
	else if ($0 ~ / (openat2|openat|open|creat)\(/) m = accmode($0)
	else next
	if (!match($0, /\) += [0-9]+<[^>]*>/)) next
	p = substr($0, RSTART, RLENGTH); sub(/^[^<]*</, "", p); sub(/>$/, "", p)
	if (index(p, ROOT "/") != 1) next
	print pid, substr(p, length(ROOT) + 1), m
}
