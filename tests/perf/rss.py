# tests/perf/rss.py COMMAND...: runs COMMAND, then prints its wall time, its peak RSS and its exit code
# (the time-to-first-pixel tables of docs/performance.md).
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[1:])
w = time.time() - t
print("WALL %.3f s  MAXRSS %.0f MB  rc %d" % (w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0, rc), flush=True)
