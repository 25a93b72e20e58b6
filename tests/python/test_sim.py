"""chorus.sim: ASTRA-sim's measured 1 MiB ring All-Reduce on 8 NPUs (64,440 ns) and its reports as records."""

import os
import tempfile
import unittest

import chorus
from support import REFERENCE


class SimTest(unittest.TestCase):
    def run_reference(self, **kwargs):
        inputs = REFERENCE / "astra-sim-inputs"
        return chorus.sim(REFERENCE / "chakra-traces" / "all_reduce_1048576B" / "8npus" / "all_reduce",
                          network=inputs / "network" / "Ring_8.yml", system=inputs / "system" / "ring_1d.json",
                          **kwargs)

    def test_astra_sim_reference_time(self):
        run = self.run_reference()
        self.assertEqual(run.finish_ns, 64440.0)
        self.assertEqual(run.summary["npus"], 8)
        self.assertIsNone(run.out)
        self.assertGreaterEqual(len(run.collectives), 1)
        for row in run.collectives:  # one 1 MiB All-Reduce on all 8 NPUs, taking the whole run
            self.assertEqual((row["group_npus"], row["comm_size_bytes"], row["duration_ns"]), (8, 1048576, 64440))
            self.assertAlmostEqual(row["algbw_GBps"], 1048576 / 64440e-9 / 1e9, delta=1e-6)  # CSV: 6 decimals

    def test_critical_path_is_the_all_reduce(self):
        # The run is one 64,440 ns All-Reduce on all 8 NPUs: the whole critical path, and all exposed time.
        run = self.run_reference()
        totals = run.summary["critical_path_totals"]
        self.assertEqual(totals, {"compute_ns": 0.0, "collective_ns": 64440.0, "p2p_ns": 0.0, "other_ns": 0.0})
        self.assertEqual(len(run.summary["blame"]), 1)
        self.assertEqual(run.summary["blame"][0]["exposed_ns"], 64440.0)

    def test_out_directory_keeps_the_reports(self):
        with tempfile.TemporaryDirectory() as d:
            run = self.run_reference(out=d)
            self.assertEqual(run.out, d)
            for name in ("summary.json", "collectives.csv", "timeline.json"):
                self.assertTrue(os.path.exists(os.path.join(d, name)), name)


if __name__ == "__main__":
    unittest.main()
