"""`import chorus` maps neither ns-3 nor MPI nor GLPK (issue #30: they are plugins, loaded on first use), and a job
that needs one loads it from the plugin folder: the exact All-to-All bound (GLPK)."""

import os
import subprocess
import sys
import unittest

FOREIGN = ("libns3", "libmpi", "libglpk", "libchorus_")


def mapped_after(code):
    """The files mapped into a fresh interpreter after running `code` (its /proc/self/maps)."""
    script = code + "\nprint(open('/proc/self/maps').read())"
    return subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                          env=os.environ).stdout


class StartupTest(unittest.TestCase):
    def test_import_maps_no_plugin(self):
        maps = mapped_after("import chorus")
        self.assertIn("_chorus", maps)
        for library in FOREIGN:
            self.assertNotIn(library, maps)

    def test_a_collective_maps_no_plugin(self):
        maps = mapped_after("import chorus\nchorus.collective('ring:256', 'all_reduce', '64MiB', bandwidth='50GB/s', "
                            "latency='1us')")
        for library in FOREIGN:
            self.assertNotIn(library, maps)

    def test_the_exact_all_to_all_bound_loads_glpk(self):
        maps = mapped_after("import chorus\nr = chorus.synth('mesh2d:4x4', 'all_to_all', '16MiB', "
                            "bandwidth='50GiB/s', latency='0.5us')\nassert r.bound_ns == 312499.999, r.bound_ns")
        self.assertIn("libchorus_glpk.so", maps)
        self.assertNotIn("libns3", maps)


if __name__ == "__main__":
    unittest.main()
