"""chorus.llm and chorus.netopt against published numbers (Calculon's breakdown, LIBRA's netopt test vectors)."""

import json
import tempfile
import unittest
from pathlib import Path

import chorus
from support import REFERENCE

CALCULON = REFERENCE / "calculon-inputs"
LIBRA = REFERENCE / "libra-inputs"


class LlmTest(unittest.TestCase):
    def test_run_matches_calculons_breakdown(self):
        # llm-model.md 2.2: megatron-1T on 3,072 A100 (TP4 PP64 DP12, full recompute): fw 15.48 s, PP 0.60 s.
        st = chorus.llm.run(CALCULON / "models" / "megatron-1T.json", CALCULON / "systems" / "a100_80g.json",
                            CALCULON / "examples" / "3072_t4_p64_d12_mbs4_full.json")
        self.assertAlmostEqual(st["fw_time"], 15.48, delta=0.01 * 15.48)
        self.assertAlmostEqual(st["pp_comm_exposed_time"], 0.60, delta=0.02 * 0.60)
        self.assertAlmostEqual(st["sample_rate"], 3072 / st["total_time"], places=9)  # batch 3072

    def test_sim_engine_beside_the_planner(self):
        # examples/llm/compare: the simulator engine's compute is the planner's, its iteration within 5 % of it.
        examples = Path(__file__).resolve().parents[2] / "examples" / "llm"
        args = (examples / "llama2-7b.json", "a100-80gb", examples / "compare" / "dense_tp4_pp2_dp2.json")
        planner = chorus.llm.run(*args)
        sim = chorus.llm.run(*args, engine="sim")
        self.assertEqual(sim["engine"], "sim")
        self.assertEqual(sim["planner_total_time"], planner["total_time"])
        self.assertAlmostEqual(sim["sim_finish_ns"] / 1e9 / planner["total_time"], 1.0, delta=0.05)
        with self.assertRaises(chorus.InputError) as caught:
            chorus.llm.run(*args, engine="simulator")
        self.assertEqual(caught.exception.field, "engine")

    def test_search_returns_records_that_run_reproduces(self):
        model, system = CALCULON / "models" / "megatron-22B.json", CALCULON / "systems" / "a100_80g.json"
        best = chorus.llm.search(model=model, system=system, gpus=64, max_batch=256, top=3, threads=1)
        self.assertEqual(len(best), 3)
        self.assertGreater(best.valid, 0)
        rates = [r["stats"]["sample_rate"] for r in best]
        self.assertEqual(rates, sorted(rates, reverse=True))
        with tempfile.TemporaryDirectory() as d:
            exec_file = Path(d) / "exec.json"
            exec_file.write_text(json.dumps(best[0]["execution"]))
            again = chorus.llm.run(model, system, exec_file)
        self.assertEqual(again["sample_rate"], rates[0])


class NetoptTest(unittest.TestCase):
    def test_four_dimensional_gpt3_under_500_gbps(self):
        # netopt.md's matrix: 4d GPT_3 under sum B = 500 GB/s is [338.4, 84.6, 58.2, 18.8] GB/s, 722.41 ms.
        r = chorus.netopt.optimize(LIBRA / "network" / "4d_network.yml", LIBRA / "cost_model" / "4d_cost_model.yml",
                                   LIBRA / "workload" / "GPT_3.txt", LIBRA / "communicator" / "GPT_3_4d.yml",
                                   budget="total-bw=500GB/s")
        for got, want in zip(r["bandwidth_GBps"], [338.4, 84.6, 58.2, 18.8]):
            self.assertAlmostEqual(got, want, delta=0.06)
        self.assertAlmostEqual(r["time_ms"], 722.41, delta=0.01)
        self.assertAlmostEqual(sum(r["bandwidth_GBps"]), 500.0, delta=1e-6)


if __name__ == "__main__":
    unittest.main()


class MachinesTest(unittest.TestCase):
    def test_presets_with_sources(self):
        # DGX H100 datasheet: NVLink 900 GB/s per GPU both directions, so 450 GB/s each way; H100 SXM BF16 1,979
        # TFLOPS with sparsity, so 989.5 dense.
        presets = chorus.machines()
        by_name = {m["name"]: m for m in presets["machines"]}
        self.assertEqual(by_name["dgx-h100"]["scale_up_bandwidth"], 450e9)
        self.assertEqual(by_name["dgx-h100"]["device"], "h100-80gb")
        h100 = next(d for d in presets["devices"] if d["name"] == "h100-80gb")
        self.assertEqual(h100["matrix_bf16"], 1979e12 / 2)
        self.assertTrue(all(m["sources"] for m in presets["machines"]))
