#!/usr/bin/env python3
"""tests/perf/wave_tables.py: docs/performance.md's tables and charts from the JSON that
tests/perf/bench_wave.sh writes. Standard library only; the charts need gnuplot.

usage: tests/perf/wave_tables.py JSON_DIR [CHART_DIR]   (markdown on stdout)
"""
import json
import os
import subprocess
import sys

SCENES = ["default", "cornell", "mirror_hall", "mesh", "cornell_path", "sphere_field"]
MASKS = ["flags", "stencil", "compact", "wave", "megakernel"]
WAY = {"wave, no repacking": "no repack", "wave, no repacking, slowest tiles first": "slowest first",
       "wave, repacking at 16": "repack 16", "compact": "compact",
       "measuring": "measuring"}


def load(path):
    with open(path) as f:
        return json.load(f)


def by_depth(doc):
    rows = {}
    for r in doc["results"]:
        rows.setdefault(r["depth"], {})[r["mask"]] = r
    return rows


def ratio_cells(num, den):
    """num's wave ÷ den's megakernel FPS at depths 1-8 as table cells, bold where the wave is at
    least as fast."""
    cells = []
    for k in range(1, 9):
        x = num[k]["wave"]["fps"] / den[k]["megakernel"]["fps"]
        cells.append(f"**{x:.2f}**" if x >= 1.0 else f"{x:.2f}")
    return " | ".join(cells)


def ratio_table(d):
    out = ["| scene | size | " + " | ".join(f"d{k}" for k in range(1, 9)) + " |",
           "|---|---|" + "---:|" * 8]
    for scene in SCENES:
        for size in ("1920", "3840"):
            rows = by_depth(load(os.path.join(d, f"bench_{scene}_{size}.json")))
            out.append(f"| {scene} | {'1080p' if size == '1920' else '4K'} | {ratio_cells(rows, rows)} |")
    return "\n".join(out)


def full_table(d, scene, size):
    doc = load(os.path.join(d, f"bench_{scene}_{size}.json"))
    rows = by_depth(doc)
    out = [f"**{scene}.json, {'1920x1080' if size == '1920' else '3840x2160'}** (FPS, median of "
           f"{doc['results'][0]['frames']} frames; the way the wave mask measured fastest)",
           "", "| depth | " + " | ".join(MASKS) + " | wave's way | rays/frame |",
           "|---:|" + "---:|" * len(MASKS) + "---|---:|"]
    for k in sorted(rows):
        best = max(MASKS, key=lambda m: rows[k][m]["fps"])
        cells = [("**%.0f**" if m == best else "%.0f") % rows[k][m]["fps"] for m in MASKS]
        way = WAY.get(rows[k]["wave"].get("wave_way", ""), "?")
        out.append(f"| {k} | " + " | ".join(cells) + f" | {way} | {rows[k]['wave']['rays_per_frame'] / 1e6:.2f} M |")
    return "\n".join(out)


def deep_table(d):
    out = ["| scene | mask | depth 8 ms | depth 50 ms | 50 / 8 |", "|---|---|---:|---:|---:|"]
    for scene in ("cornell_path", "sphere_field"):
        a = {r["mask"]: r for r in load(os.path.join(d, f"deep_{scene}_8.json"))["results"]}
        b = {r["mask"]: r for r in load(os.path.join(d, f"deep_{scene}_50.json"))["results"]}
        for m in ("wave", "compact", "megakernel"):
            out.append(f"| {scene} | {m} | {a[m]['median_ms']:.3f} | {b[m]['median_ms']:.3f} | "
                       f"{b[m]['median_ms'] / a[m]['median_ms']:.3f} |")
    return "\n".join(out)


def breakdown_table(d):
    out = ["| scene | bounce | live before it | intersect + shade + compact ms | of bounce 0 |",
           "|---|---:|---:|---:|---:|"]
    for scene in ("default", "sphere_field"):
        r = load(os.path.join(d, f"breakdown_{scene}.json"))["results"][0]
        bd, live = r["breakdown_ms"], [1.0] + r["live_after_bounce"]
        cost = [a + b + c for a, b, c in zip(bd["intersect"], bd["shade"], bd["compact"])]
        for k, c in enumerate(cost):
            out.append(f"| {scene} | {k} | {100 * live[k]:.2f} % | {c:.4f} | {100 * c / cost[0]:.1f} % |")
    return "\n".join(out)


def marginal_table(d):
    """What one more bounce costs the wave mask: ms(depth) - ms(depth - 1), against ms(1), from
    the 100-frame run where there is one (marginal_SCENE.json), else from the depth sweep."""
    out = ["| scene | live after bounce 6 | ms at depth 1 | depth 7 → 8 adds | share |", "|---|---:|---:|---:|---:|"]
    for scene in SCENES:
        rows = by_depth(load(os.path.join(d, f"bench_{scene}_1920.json")))
        live = rows[8]["compact"]["live_after_bounce"][6]
        fine = os.path.join(d, f"marginal_{scene}.json")
        timed = by_depth(load(fine)) if os.path.exists(fine) else rows
        m1, m7, m8 = (timed[k]["wave"]["median_ms"] for k in (1, 7, 8))
        out.append(f"| {scene} | {100 * live:.2f} % | {m1:.3f} | {m8 - m7:+.4f} | {100 * (m8 - m7) / m1:+.1f} % |")
    return "\n".join(out)


def micro_table(d):
    doc = load(os.path.join(d, "micro.json"))
    out = ["| pattern | live | ballot µs | CUB µs | ballot ÷ CUB time |", "|---|---:|---:|---:|---:|"]
    for r in doc["compaction"]:
        out.append(f"| {r['pattern']} | {r['live_fraction']:.2f} | {r['ballot']['median_us']:.1f} | "
                   f"{r['cub']['median_us']:.1f} | **{r['ballot_speedup_vs_cub']:.2f}×** faster |"
                   if r["ballot_speedup_vs_cub"] >= 1 else
                   f"| {r['pattern']} | {r['live_fraction']:.2f} | {r['ballot']['median_us']:.1f} | "
                   f"{r['cub']['median_us']:.1f} | {r['ballot_speedup_vs_cub']:.2f}× |")
    return "\n".join(out)


def card_name(doc):
    """The card a bench JSON was measured on, as its device line names it ("NVIDIA H100 80GB
    HBM3 (sm_90, ...), driver ..." gives "NVIDIA H100 80GB HBM3")."""
    return doc.get("device", "unknown card").split(" (")[0]


def charts(d, where):
    for size, label in (("1920", "1920x1080"), ("3840", "3840x2160")):
        data = os.path.join(where, f"fps_{label}.dat")
        with open(data, "w") as f:
            for scene in SCENES:
                rows = by_depth(load(os.path.join(d, f"bench_{scene}_{size}.json")))
                for m in MASKS:
                    f.write(f"# {scene} {m}\n")
                    for k in sorted(rows):
                        f.write(f"{k} {rows[k][m]['fps']:.1f}\n")
                    f.write("\n\n")
        plots = []
        script = [f"set terminal pngcairo size 1500,860 font 'sans,10'", f"set output ARG1",
                  "set multiplot layout 2,3 title ARG2 noenhanced", "set grid", "set xtics 1", "set logscale y",
                  "set key bottom left font ',8'"]
        for si, scene in enumerate(SCENES):
            script.append(f"set title '{scene}' noenhanced")
            parts = []
            for mi, m in enumerate(MASKS):
                style = {"flags": "lw 1 lc rgb '#999999'", "stencil": "lw 1 lc rgb '#2e8b57'",
                         "compact": "lw 2 lc rgb '#1f77b4'", "wave": "lw 3 lc rgb '#c0392b'",
                         "megakernel": "lw 2 dt 2 lc rgb '#222222'"}[m]
                parts.append(f"ARG3 index {si * len(MASKS) + mi} with linespoints {style} pt 7 ps 0.5 title '{m}'")
            script.append("plot " + ", ".join(parts))
        script.append("unset multiplot")
        gp = os.path.join(where, f"fps_{label}.gp")
        with open(gp, "w") as f:
            f.write("\n".join(script) + "\n")
        png = os.path.join(where, f"fps_{label}.png")
        card = card_name(load(os.path.join(d, f"bench_{SCENES[0]}_{size}.json")))
        subprocess.run(["gnuplot", "-c", gp, png, f"FPS per trace depth, {label}, {card} (log scale)", data],
                       check=True)
        os.remove(gp)
        os.remove(data)


def showcase_table(d):
    doc = load(os.path.join(d, "showcase_1920.json"))
    rows = by_depth(doc)[8]
    out = ["| mask | FPS | ms | rays/frame |", "|---|---:|---:|---:|"]
    for m in MASKS:
        r = rows[m]
        out.append(f"| {m} | {r['fps']:.0f} | {r['median_ms']:.3f} | {r['rays_per_frame'] / 1e6:.2f} M |")
    return "\n".join(out)


def twin_table(d, prefix, scenes, sizes):
    """The megakernel's time in bench_*.json ÷ its time in PREFIX_*.json at depths 1-8, bold
    where the twin is faster: the record of a twin measured before it was settled
    (docs/experiments.md). Today's builds have neither twin; the files of a run from before
    (bounded_*: the megakernel at the wave's register budget, then $SR_MEGAKERNEL_BOUNDED;
    deferred_*: its last segment deferred, $SR_MEGAKERNEL_DEFERRED) still make the table."""
    out = ["| scene | size | " + " | ".join(f"d{k}" for k in range(1, 9)) + " |", "|---|---|" + "---:|" * 8]
    for scene in scenes:
        for size in sizes:
            path = os.path.join(d, f"{prefix}_{scene}_{size}.json")
            if not os.path.exists(path):
                continue
            base = by_depth(load(os.path.join(d, f"bench_{scene}_{size}.json")))
            twin = by_depth(load(path))
            cells = []
            for k in range(1, 9):
                x = base[k]["megakernel"]["median_ms"] / twin[k]["megakernel"]["median_ms"]
                cells.append(f"**{x:.2f}**" if x > 1.0 else f"{x:.2f}")
            out.append(f"| {scene} | {'1080p' if size == '1920' else '4K'} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plain_table(d):
    """Each scene's frame time on the build that runs it (plain, without assets, or general)
    divided by its time on the general build ($SR_NO_PLAIN_KERNELS), wave and megakernel: both
    from the measurement build (measured_*, general_*), or where there is no measured_* (runs
    from before 2026-11-27, when the switch was in every build) bench_* and general_*."""
    out = ["| scene | size | mask | " + " | ".join(f"d{k}" for k in range(1, 9)) + " |",
           "|---|---|---|" + "---:|" * 8]
    for scene in SCENES:
        for size in ("1920", "3840"):
            path = os.path.join(d, f"general_{scene}_{size}.json")
            if not os.path.exists(path):
                continue
            base = os.path.join(d, f"measured_{scene}_{size}.json")
            if not os.path.exists(base):
                base = os.path.join(d, f"bench_{scene}_{size}.json")
            built = by_depth(load(base))
            general = by_depth(load(path))
            for m in ("wave", "megakernel"):
                out.append(f"| {scene} | {'1080p' if size == '1920' else '4K'} | {m} | " + " | ".join(
                    f"{built[k][m]['median_ms'] / general[k][m]['median_ms']:.2f}" for k in range(1, 9)) + " |")
    return "\n".join(out)


def main():
    d = sys.argv[1]
    print("### wave ÷ megakernel FPS\n\n" + ratio_table(d) + "\n")
    print("### depth 8 and 50\n\n" + deep_table(d) + "\n")
    print("### marginal bounce\n\n" + marginal_table(d) + "\n")
    print("### compact breakdown\n\n" + breakdown_table(d) + "\n")
    print("### micro\n\n" + micro_table(d) + "\n")
    if os.path.exists(os.path.join(d, "showcase_1920.json")):
        print("### showcase\n\n" + showcase_table(d) + "\n")
    if os.path.exists(os.path.join(d, "bounded_default_1920.json")):
        print("### megakernel at nvcc's registers ÷ at the wave's budget (time)\n\n" +
              twin_table(d, "bounded", SCENES, ("1920", "3840")) + "\n")
    if os.path.exists(os.path.join(d, "deferred_sphere_field_1920.json")):
        print("### megakernel ÷ its deferred twin (time)\n\n" +
              twin_table(d, "deferred", ("cornell_path", "sphere_field"), ("1920", "3840")) + "\n")
    if os.path.exists(os.path.join(d, "general_sphere_field_1920.json")):
        print("### plain kernels\n\n" + plain_table(d) + "\n")
    for scene in SCENES:
        for size in ("1920", "3840"):
            print(full_table(d, scene, size) + "\n")
    if len(sys.argv) > 2:
        charts(d, sys.argv[2])


if __name__ == "__main__":
    main()
