#!/usr/bin/env python3
"""footprint.py books every input section of a map to the right component:
the SDK's sections in an image linked with -flto (GCC's "ltrans" objects,
named after their symbols) to sdk or coap, the static-address lwIP build to
lwip, the example's own libraries to app. The last test feeds a map whose
ltrans sections footprint.py would not recognise and checks the SDK's bytes
are then missing, so the attribution is what the other tests measure. The
baseline check (an image against another, e.g. the secure firmware against
the plain one) passes up to its limit and fails one byte past it."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import footprint  # noqa: E402

MAP = """Linker script and memory map

.text           0x00000040    0x1000
 .text._ZN8edgeadmm12DeviceClient4StepEv
                0x00000040      0x200 /tmp/ccAbCd.ltrans0.ltrans.o
 .text._ZN8edgeadmm4coap10CoapClient4SendEv.constprop.0
                0x00000240       0x80 /tmp/ccAbCd.ltrans1.ltrans.o
 .text.udp_sendto
                0x000002c0       0x40 lib/libedgeadmm_lwip_static.a(udp.c.obj)
 .text.netif_glue
                0x00000300       0x20 platform/lwip/libedgeadmm_lwip_port_static.a(netif.cc.obj)
 .text.ParseBlob
                0x00000320       0x10 examples/x/libexample_device_provisioning.a(provisioning.cc.obj)
 .text.main     0x00000330       0x08 CMakeFiles/image.dir/main.cc.obj
.bss            0x20000000      0x100
 .bss._ZZN8edgeadmm4coap12_GLOBAL__N_14PollEvE5state
                0x20000000       0x30 /tmp/ccAbCd.ltrans1.ltrans.o
 .bss._ZN8edgeadmm19DevicePrivacyLedger7kOrdersE.lto_priv.0
                0x20000030       0x50 /tmp/ccAbCd.ltrans2.ltrans.o
"""


def book(text):
    flash, ram = {}, {}
    for output, section, size, path in footprint.parse_map(text):
        name = footprint.component_of(path, section)
        table = ram if output == ".bss" else flash
        table[name] = table.get(name, 0) + size
    return flash, ram


class Attribution(unittest.TestCase):
    def test_lto_sections_go_to_the_sdk_and_coap(self):
        flash, ram = book(MAP)
        self.assertEqual(flash["sdk"], 0x200)
        self.assertEqual(flash["coap"], 0x80)
        self.assertEqual(ram["coap"], 0x30)
        self.assertEqual(ram["sdk"], 0x50)

    def test_static_lwip_and_example_libraries(self):
        flash, _ = book(MAP)
        self.assertEqual(flash["lwip"], 0x40)
        self.assertEqual(flash["lwip_port"], 0x20)
        self.assertEqual(flash["app"], 0x10 + 0x08)
        self.assertNotIn("other", flash)

    def test_unrecognised_objects_lose_the_sdk(self):
        # The check above can fail: the same sections from objects that are
        # not ltrans objects are not booked to the SDK.
        flash, _ = book(MAP.replace(".ltrans.o", ".lto.o"))
        self.assertNotIn("sdk", flash)
        self.assertNotIn("coap", flash)


class Baseline(unittest.TestCase):
    def test_a_difference_up_to_the_limit_is_within(self):
        line, within = footprint.baseline_verdict(110308, 93984, 16384)
        self.assertTrue(within)
        self.assertIn("+16324 / +16384", line)
        self.assertTrue(footprint.baseline_verdict(110368, 93984, 16384)[1])

    def test_a_difference_past_the_limit_fails(self):
        line, within = footprint.baseline_verdict(110369, 93984, 16384)
        self.assertFalse(within)
        self.assertIn("OVER by 1", line)


if __name__ == "__main__":
    unittest.main()
