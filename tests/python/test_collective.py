"""chorus.collective / chorus.bound / chorus.Topology against closed forms (the numbers the C++ CLI tests use)."""

import json
import subprocess
import unittest

import chorus
from support import CHORUS_BINARY, SOURCE_DIR


class CollectiveTest(unittest.TestCase):
    def test_ring_all_gather_closed_form(self):
        # Ring All-Gather of D = 8 MB on 8 NPUs: (p - 1) (alpha + (D / p) / B) = 7 * (1 us + 1e6 B / 50e9 B/s)
        # = 7 * 21 us = 147 us.
        r = chorus.collective(topology="ring:8", bandwidth="50GB/s", latency="1us", collective="all_gather",
                              size="8MB")
        self.assertEqual(r.time_ns, 147000.0)
        algbw = 8e6 / 147000e-9 / 1e9
        self.assertAlmostEqual(r.algbw_GBps, algbw, places=9)
        self.assertAlmostEqual(r.busbw_GBps, algbw * 7 / 8, places=9)  # NCCL bus factor (n - 1) / n
        # Bidirectional ring All-Gather bound: (N - 1) D / (2 N B) = 7 * 8e6 / (16 * 50e9) s = 70 us.
        self.assertAlmostEqual(r.bandwidth_bound_ns, 70000.0, places=6)
        self.assertAlmostEqual(r.ratio, 147000.0 / r.bound_ns, places=12)

    def test_ring_all_reduce_closed_form_from_a_topology_object(self):
        # 2 (p - 1) (alpha + (D / p) / B) = 14 * 21 us = 294 us; the size as a whole number of bytes.
        topo = chorus.Topology.load("ring:8", bandwidth="50GB/s", latency="1us")
        self.assertEqual((topo.npu_count, topo.name), (8, "ring:8"))
        r = chorus.collective(topo, "all_reduce", 8_000_000, algorithm="ring")
        self.assertEqual(r.time_ns, 294000.0)
        self.assertEqual(r.to_dict()["size_bytes"], 8_000_000)

    def test_msccl_algorithm_file(self):
        # The hand-written ring All-Reduce of tests/data/msccl: 6 hops of 1 us + 1 MB / 10 GB/s = 606 us.
        xml = SOURCE_DIR / "tests" / "data" / "msccl" / "allreduce_ring_4.xml"
        r = chorus.collective("ring:4", "all_reduce", "4MB", bandwidth="10GB/s", latency="1us",
                              algorithm=f"msccl:{xml}")
        self.assertEqual(r.time_ns, 606000.0)
        self.assertTrue(r.to_dict()["semantics_checked"])
        with self.assertRaises(chorus.InputError):
            chorus.collective("ring:4", "all_gather", "4MB", bandwidth="10GB/s", latency="1us",
                              algorithm=f"msccl:{xml}")

    def test_flow_model_without_contention_matches_alpha_beta(self):
        # 4-NPU ring All-Reduce of 4 MB under the flow model: 6 x (1 us + 1 MB / 50 GB/s) = 126 us.
        r = chorus.collective("ring:4", "all_reduce", "4MB", bandwidth="50GB/s", latency="1us", model="flow")
        self.assertEqual(r.model, "flow")
        self.assertEqual(r.time_ns, 126000.0)

    def test_to_dict_has_the_keys_of_the_cli_json(self):
        args = ["--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us", "--collective", "all_gather",
                "--size", "8MB"]
        cli = json.loads(subprocess.run([CHORUS_BINARY, "collective", *args, "--json"], check=True,
                                        capture_output=True, text=True).stdout)
        py = chorus.collective("ring:8", "all_gather", "8MB", bandwidth="50GB/s", latency="1us").to_dict()
        self.assertEqual(set(py), set(cli))
        for key in ("time_ns", "bound_ns", "busbw_GBps", "algorithm", "chunks", "transfers"):
            self.assertEqual(py[key], cli[key], key)

    def test_synth_collective_on_an_edge_list_file(self):
        topo = chorus.Topology.load(SOURCE_DIR / "examples" / "topologies" / "two_pods.txt")
        self.assertEqual(topo.npu_count, 8)
        r = chorus.collective(topo, "all_gather", "1GiB", algorithm="synth", model="flow")
        self.assertEqual((r.algorithm, r.model, r.npus), ("synth", "flow", 8))
        # No schedule beats the bound; the synthesized one is simulated, so time >= bound.
        self.assertGreaterEqual(r.time_ns, r.bound_ns)

    def test_bound_ring_all_gather(self):
        b = chorus.bound("ring:8", "all_gather", "8MB", bandwidth="50GB/s", latency="1us")
        self.assertAlmostEqual(b["bandwidth_bound_ns"], 70000.0, places=6)
        self.assertAlmostEqual(b["latency_bound_ns"], 4000.0, places=6)  # diameter 4 hops x 1 us

    def test_version_is_the_project_version(self):
        text = (SOURCE_DIR / "CMakeLists.txt").read_text()
        self.assertIn(f"project(chorus VERSION {chorus.__version__} ", text)


if __name__ == "__main__":
    unittest.main()
