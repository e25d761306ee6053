#!/usr/bin/env python3
"""Tests of warps_over_time.py (the warp timeline's chart): the binning, the checks on its
input, and a whole run through gnuplot that writes a PNG or nothing."""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "warps_over_time.py")
spec = importlib.util.spec_from_file_location("warps_over_time", SCRIPT)
wot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wot)

HEADER = "warp,start_ns,ran_ns,sm,deepest_bounce\n"


class Binning(unittest.TestCase):
    def test_a_warp_is_spread_over_the_bins_it_overlaps(self):
        # 0-10 us and 5-15 us, 10 us bins: the first bin holds one whole warp and half of
        # the other, the second the other half.
        self.assertEqual(wot.warps_running([(0, 10000), (5000, 10000)], 10000), [1.5, 0.5])

    def test_a_bin_counts_the_warps_running_through_it(self):
        bins = wot.warps_running([(0, 30000)] * 4 + [(25000, 1000)], 10000)
        self.assertEqual(bins, [4.0, 4.0, 4.1, 0.0])

    def test_the_bins_add_up_to_the_warps_time(self):
        recs = [(s * 700, 3000 + 17 * s) for s in range(200)]
        total = sum(r for _, r in recs) / 2500
        self.assertAlmostEqual(sum(wot.warps_running(recs, 2500)), total, places=6)


class Inputs(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_a_bad_row_names_its_file_and_line(self):
        csv_path = self.write("t.csv", HEADER + "0,0,100,1,2\n1,x,100,1,2\n")
        out = os.path.join(self.dir, "out.png")
        r = self.run_script(out, f"a={csv_path}")
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{csv_path}:3:", r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_a_file_that_is_not_a_timeline_is_refused(self):
        csv_path = self.write("t.csv", "a,b\n1,2\n")
        r = self.run_script(os.path.join(self.dir, "out.png"), f"a={csv_path}")
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{csv_path}:1: expected the header", r.stderr)

    def test_a_curve_needs_a_name(self):
        r = self.run_script(os.path.join(self.dir, "out.png"), "no-equals-sign")
        self.assertEqual(r.returncode, 2)
        self.assertIn("expected NAME=FILE.csv", r.stderr)

    @unittest.skipIf(shutil.which("gnuplot") is None, "gnuplot not installed")
    def test_a_chart_is_written_whole(self):
        rows = "".join(f"{k},{k * 1000},{20000 + k * 50},{k % 4},{1 + k % 8}\n" for k in range(300))
        csv_path = self.write("t.csv", HEADER + rows)
        out = os.path.join(self.dir, "out.png")
        # A name with quotes and a semicolon: it travels as data, never as gnuplot code.
        r = self.run_script(out, f'x"; system("touch pwned") ;"={csv_path}', "--slots", "100")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.png", "t.csv"])   # no temporary left


if __name__ == "__main__":
    unittest.main()
