"""chorus.synth: a synthesized ring All-Gather against its closed form, its certificate and its MSCCL XML."""

import unittest
import xml.etree.ElementTree as ET

import chorus


class SynthTest(unittest.TestCase):
    def test_unidirectional_ring_all_gather_reaches_the_closed_form(self):
        # uniring:4, one chunk per NPU of D / 4 = 1 MB: every chunk must cross 3 links in turn, each link carries
        # 3 chunks, so (p - 1) (alpha + (D / p) / B) = 3 * (1 us + 1e6 / 50e9 s) = 63 us is both the ring schedule
        # and the bound on this topology.
        r = chorus.synth("uniring:4", "all_gather", "4MB", bandwidth="50GB/s", latency="1us", chunks=1)
        self.assertAlmostEqual(r.time_ns, 63000.0, places=6)
        self.assertEqual(r.transfers, 12)  # 4 chunks x 3 hops
        self.assertGreaterEqual(r.time_ns, r.bound_ns - 1e-6)
        self.assertAlmostEqual(r.ratio, r.time_ns / r.bound_ns, places=12)
        check = r.verify()
        self.assertTrue(check["verified"], check)
        self.assertIsNone(check["verify_error"])
        xml = ET.fromstring(r.msccl_xml("ag4"))
        self.assertEqual((xml.tag, xml.get("name"), xml.get("ngpus"), xml.get("coll")), ("algo", "ag4", "4", "allgather"))
        self.assertEqual(len(xml.findall("gpu")), 4)

    def test_all_to_all_xml_is_out_of_place_with_a_local_copy_per_gpu(self):
        # A 6-ring All-to-All, one chunk per pair: written out of place (in place, a receive into output chunk s
        # would overwrite the input chunk still to be sent to GPU s), each GPU copying its own chunk locally:
        # 6 "cpy" steps in all.
        r = chorus.synth("ring:6", "all_to_all", "6MiB", bandwidth="50GB/s", latency="1us", chunks=1)
        xml = ET.fromstring(r.msccl_xml("a2a"))
        self.assertEqual((xml.get("inplace"), xml.get("outofplace")), ("0", "1"))
        self.assertEqual(len([s for s in xml.iter("step") if s.get("type") == "cpy"]), 6)

    def test_xml_name_is_escaped(self):
        # repro2 finding 34: a name holding a quote added a second coll attribute; '<' and '&' gave invalid XML
        r = chorus.synth("ring:4", "all_gather", "16MiB", bandwidth="50GB/s", latency="1us")
        for name in ['evil" coll="allreduce', "a<b&c>d"]:
            text = r.msccl_xml(name)
            xml = ET.fromstring(text)
            self.assertEqual((xml.get("name"), xml.get("coll")), (name, "allgather"))
            self.assertEqual(text.splitlines()[0].count(" coll=\""), 1)

    def test_bad_chunk_count_is_an_input_error(self):
        with self.assertRaises(chorus.InputError) as caught:
            chorus.synth("ring:8", "all_gather", "1MiB", bandwidth="50GB/s", latency="1us", chunks=0)
        self.assertEqual(caught.exception.field, "chunks")


if __name__ == "__main__":
    unittest.main()
