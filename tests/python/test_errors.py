"""Bad input from Python: chorus.InputError naming the file and the field, never a crash of the interpreter."""

import json
import tempfile
import unittest
from pathlib import Path

import chorus
from support import REFERENCE


class InputErrorTest(unittest.TestCase):
    def assert_input_error(self, call, field, file=None):
        with self.assertRaises(chorus.InputError) as caught:
            call()
        e = caught.exception
        self.assertIsInstance(e, ValueError)
        self.assertIn(field, e.field)
        self.assertTrue(e.message)
        self.assertNotIn("\n", str(e))
        if file is not None:
            self.assertIn(file, e.file)
        return e

    def test_bad_topology_spec(self):
        e = self.assert_input_error(
            lambda: chorus.Topology.load("torus2d:0x16", bandwidth="50GB/s", latency="1us"), "topology")
        self.assertIn("torus2d:0x16", e.message)

    def test_missing_topology_file(self):
        missing = "/nonexistent/chorus/topo.txt"
        self.assert_input_error(lambda: chorus.Topology.load(missing), "file", file=missing)

    def test_bad_size_string(self):
        e = self.assert_input_error(
            lambda: chorus.collective("ring:8", "all_gather", "12 parsecs", bandwidth="50GB/s", latency="1us"),
            "size")
        self.assertIn("12 parsecs", e.message)

    def test_bad_bandwidth_string(self):
        self.assert_input_error(lambda: chorus.Topology.load("ring:8", bandwidth="fast", latency="1us"), "bandwidth")

    def test_unknown_collective(self):
        self.assert_input_error(
            lambda: chorus.collective("ring:8", "all_shout", "1MiB", bandwidth="50GB/s", latency="1us"), "collective")

    def test_bad_llm_json(self):
        with tempfile.TemporaryDirectory() as d:
            bad = Path(d) / "model.json"
            bad.write_text("{\"hidden\": ")
            system = REFERENCE / "calculon-inputs" / "systems" / "a100_80g.json"
            self.assert_input_error(lambda: chorus.llm.run(bad, system, bad), "", file=str(bad))

    def test_bad_workload_path(self):
        network = REFERENCE / "astra-sim-inputs" / "network" / "Ring_8.yml"
        self.assert_input_error(lambda: chorus.sim("/nonexistent/chorus/trace", network=network), "")

    def test_the_interpreter_survives_and_runs_on(self):
        for _ in range(3):
            with self.assertRaises(chorus.InputError):
                chorus.collective("ring:8", "all_gather", "-1MiB", bandwidth="50GB/s", latency="1us")
        self.assertEqual(chorus.collective("ring:8", "all_gather", "8MB", bandwidth="50GB/s",
                                           latency="1us").time_ns, 147000.0)

    def test_synth_options_without_synth_are_refused(self):
        # repro2 finding 33: npus, chunks and seed were ignored by the built-in ring (the CLI exits 2)
        e = self.assert_input_error(
            lambda: chorus.collective("ring:8", "all_reduce", "1MiB", bandwidth="50GB/s", latency="1us",
                                      npus=[0, 1], chunks=4, seed=7), "npus")
        self.assertIn("algorithm='synth'", e.message)
        self.assert_input_error(
            lambda: chorus.collective("ring:8", "all_reduce", "1MiB", bandwidth="50GB/s", latency="1us", seed=7),
            "seed")


if __name__ == "__main__":
    unittest.main()
