#!/usr/bin/env python3
"""Draw how many warps of the wave kernel ran over one frame, from the CSV records of a
timeline build (kernels/frames/wave.h: cmake -DSR_MEASURE=ON, then SR_WAVE_TIMELINE=FILE.csv
stencilray bench ...), as docs/performance.md's chart assets/readme/warps_over_time.png.

    warps_over_time.py OUT.png "mesh, depth 8=mesh8.csv" "sphere field, depth 8=sph8.csv" \
        [--slots 4752] [--bin-us 10]

Each warp's time is spread over the bins it overlaps, so a bin's value is the average
number of warps running during it. --slots draws the GPU's warp slots as a dashed line
(the H200's 132 SMs x 36 warps of the wave kernel: 4752).

gnuplot draws the chart. Nothing given on the command line reaches its script: the curves'
names travel in the data files (read as column headers), and the PNG comes back on
gnuplot's standard output and is written here, whole or not at all."""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

COLOURS = ["#d62728", "#ff9896", "#9467bd", "#1f77b4", "#2ca02c", "#8c564b"]


def fail(msg):
    print(f"warps_over_time.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_records(path):
    """(start_ns, ran_ns) of every warp in a timeline CSV."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    want = ["warp", "start_ns", "ran_ns", "sm", "deepest_bounce"]
    if not rows or rows[0] != want:
        fail(f"{path}:1: expected the header {','.join(want)} (a file SR_WAVE_TIMELINE wrote)")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(want) or not all(x.isdigit() for x in row):
            fail(f"{path}:{n}: expected {len(want)} whole numbers, got {','.join(row)[:80]!r}")
        out.append((int(row[1]), int(row[2])))
    if not out:
        fail(f"{path}: no warp recorded (was the kernel without the queue run: --wave-dense 1?)")
    return out


def warps_running(records, bin_ns):
    """Average warps running in each bin, from the frame's first warp."""
    end = max(s + r for s, r in records)
    bins = [0.0] * (end // bin_ns + 1)
    for s, r in records:
        t, stop = s, s + r
        while t < stop:
            b = t // bin_ns
            nxt = min(stop, (b + 1) * bin_ns)
            bins[b] += (nxt - t) / bin_ns
            t = nxt
    return bins


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the PNG to write")
    ap.add_argument("curves", nargs="+", metavar="NAME=FILE.csv")
    ap.add_argument("--slots", type=int, default=0, help="warp slots to draw as a line (0: none)")
    ap.add_argument("--bin-us", type=float, default=10.0, help="bin width in microseconds (default 10)")
    a = ap.parse_args()
    if not a.bin_us > 0:
        fail(f"--bin-us {a.bin_us}: expected a width above 0")
    if len(a.curves) > len(COLOURS):
        fail(f"{len(a.curves)} curves: at most {len(COLOURS)}")
    bin_ns = max(1, int(a.bin_us * 1000))
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        if a.slots > 0:
            plots.append(f'{a.slots} with lines dt 2 lc rgb "#888888" title "warp slots"')
        xmax = 0.0
        for k, curve in enumerate(a.curves):
            name, sep, path = curve.partition("=")
            if not sep or not name or not path:
                fail(f"{curve!r}: expected NAME=FILE.csv")
            bins = warps_running(read_records(path), bin_ns)
            xmax = max(xmax, len(bins) * a.bin_us)
            label = re.sub(r"[^A-Za-z0-9 ,.()_+-]", " ", name)
            with open(os.path.join(tmp, f"d{k}.dat"), "w") as f:
                f.write(f'us "{label}"\n')
                for b, v in enumerate(bins):
                    f.write(f"{(b + 0.5) * a.bin_us:.3f} {v:.2f}\n")
            plots.append(f'"d{k}.dat" using 1:2 with lines lw 2 lc rgb "{COLOURS[k]}" title columnheader(2)')
        script = "\n".join([
            'set terminal pngcairo size 900,420 font "sans,10"',
            'set title "Warps running during one frame (wave kernel without the queue)"',
            'set xlabel "time from the frame\'s first warp (µs)"',
            'set ylabel "warps running"',
            f"set xrange [0:{xmax:.1f}]",
            "set yrange [0:*]",
            "set key at graph 0.87, graph 0.62 right top box opaque",
            "set grid",
            "plot " + ", \\\n     ".join(plots),
            "",
        ])
        with open(os.path.join(tmp, "plot.gp"), "w") as f:
            f.write(script)
        try:
            png = subprocess.run(["gnuplot", "plot.gp"], cwd=tmp, capture_output=True, check=True).stdout
        except FileNotFoundError:
            fail("gnuplot not found (apt install gnuplot)")
        except subprocess.CalledProcessError as e:
            fail(f"gnuplot failed: {e.stderr.decode(errors='replace').strip()[:400]}")
    if not png.startswith(b"\x89PNG"):
        fail("gnuplot wrote no PNG")
    out_dir = os.path.dirname(os.path.abspath(a.out))
    fd, tmp_png = tempfile.mkstemp(prefix=".warps_over_time.", suffix=".png", dir=out_dir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(png)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp_png, 0o666 & ~mask)   # what a plain open() would have given
        os.replace(tmp_png, a.out)
    except OSError as e:
        os.unlink(tmp_png)
        fail(f"{a.out}: {e.strerror}")


if __name__ == "__main__":
    main()
