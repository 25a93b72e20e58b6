"""chorus.nccl against the values worked out by hand in tests/nccl/cost_model_test.cpp, and its bad input."""

import unittest

import chorus


class NcclTest(unittest.TestCase):
    def test_small_all_reduce_on_one_h100_node_is_ring_ll(self):
        # Ring/LL: base 6.6 us + 14 NVLink hops of 0.6 us = 15.0 us, plus 8 B at 141 x 8/14 GB/s.
        r = chorus.nccl("dgx-h100", "all_reduce", 8)
        self.assertEqual((r["nccl_algorithm"], r["nccl_protocol"], r["ranks"]), ("Ring", "LL", 8))
        self.assertAlmostEqual(r["time_ns"], 15000.0 + 8 / (141.0 * 8 / 14), places=3)
        self.assertAlmostEqual(r["busbw_GBps"], r["algbw_GBps"] * 14 / 8, places=9)
        self.assertNotIn("candidates", r)

    def test_explain_lists_every_candidate(self):
        r = chorus.nccl("dgx-h100", "all_reduce", "8GiB", nodes=1, explain=True)
        self.assertEqual(r["nccl_algorithm"], "NVLS")
        self.assertEqual(len(r["candidates"]), 21)
        off = [c for c in r["candidates"] if c["time_ns"] is None]
        self.assertTrue(all(c["disabled"] for c in off))

    def test_bad_input_is_an_input_error(self):
        for args, kwargs in ((("dgx-h10", "all_reduce", 8), {}), (("dgx-h100", "all_reduce", 8), {"nodes": 0}),
                             (("tpu-v4-pod", "all_reduce", 8), {}), (("dgx-h100", "all_reduce", 0), {})):
            with self.assertRaises(chorus.InputError):
                chorus.nccl(*args, **kwargs)


if __name__ == "__main__":
    unittest.main()
