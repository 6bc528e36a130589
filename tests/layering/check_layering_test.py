#!/usr/bin/env python3
"""check_layering.py on small trees: an include or a link that goes up the layers is reported
with its file and line; one that goes down is not; a public header spelled after another library
is reported with its path."""

import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import check_layering  # noqa: E402


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def check(root):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = check_layering.main(["check_layering.py", str(root)])
    return status, out.getvalue()


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self.root = pathlib.Path(self.enterContext(tempfile.TemporaryDirectory()))
        write(self.root, "core/model/include/sortie/model/model.hpp", "")
        write(self.root, "core/model/model.cpp", "#include <sortie/model/model.hpp>\n")
        write(self.root, "core/model/CMakeLists.txt", "add_library(sortie_model STATIC model.cpp)\n")
        write(self.root, "core/session/include/sortie/session/session.hpp",
              "#include <sortie/model/model.hpp>\n")
        write(self.root, "core/session/CMakeLists.txt",
              "add_library(sortie_session STATIC session.cpp)\n"
              "target_link_libraries(sortie_session PUBLIC sortie_model)\n")
        write(self.root, "core/store/store_schema.hpp", "")

    def test_downward_dependencies_pass(self):
        self.assertEqual(check(self.root), (0, ""))

    def test_an_upward_include_is_named(self):
        write(self.root, "core/store/store.cpp",
              '#include "store_schema.hpp"\n#include <sortie/session/session.hpp>\n')
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("core/store/store.cpp:2: #include <sortie/session/session.hpp>", out)

    def test_a_sibling_include_fails(self):
        write(self.root, "core/plugin_host/host.cpp", '#include "store_schema.hpp"\n')
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("library plugin_host includes store", out)

    def test_an_upward_link_is_named(self):
        write(self.root, "core/model/CMakeLists.txt",
              "add_library(sortie_model STATIC model.cpp)\n"
              "target_link_libraries(sortie_model\n  PRIVATE sortie_session)\n")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("core/model/CMakeLists.txt:2: sortie_model links sortie_session", out)

    def test_a_library_umbrella_header_passes(self):
        write(self.root, "core/runner/include/sortie/runner.hpp", "")
        write(self.root, "sdk/include/sortie/error.hpp", "")
        self.assertEqual(check(self.root), (0, ""))

    def test_a_header_spelled_after_another_library_is_named(self):
        write(self.root, "core/store/include/sortie/core/store.hpp", "")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("core/store/include/sortie/core/store.hpp: <sortie/core/store.hpp> does not "
                      "name its library", out)

    def test_an_umbrella_of_another_library_is_named(self):
        write(self.root, "core/xm/include/sortie/runner.hpp", "")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("core/xm/include/sortie/runner.hpp: <sortie/runner.hpp>", out)


if __name__ == "__main__":
    unittest.main()
