#!/usr/bin/env python3
"""Tests of run_doc_commands.py: the matching rules of docs/contributing-docs.md, one session per
file, and what a failure reports."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_doc_commands as runner  # noqa: E402


class MatchingTest(unittest.TestCase):
    def test_lines_match_exactly_unless_an_ellipsis_says_otherwise(self):
        self.assertTrue(runner.output_matches(["a b"], ["a b"]))
        self.assertFalse(runner.output_matches(["a.b"], ["axb"]))
        self.assertTrue(runner.output_matches(["id-... done"], ["id-k3x9 done"]))
        self.assertFalse(runner.output_matches(["id-... done"], ["id-k3x9 failed"]))

    def test_an_ellipsis_line_matches_zero_or_more_lines(self):
        self.assertTrue(runner.output_matches(["first", "...", "last"], ["first", "last"]))
        self.assertTrue(runner.output_matches(["first", "...", "last"],
                                              ["first", "x", "y", "last"]))
        self.assertFalse(runner.output_matches(["first", "...", "last"], ["first", "x"]))

    def test_no_expected_lines_means_no_output(self):
        self.assertTrue(runner.output_matches([], []))
        self.assertFalse(runner.output_matches([], ["surprise"]))


class ScratchTest(unittest.TestCase):
    """Puts every temporary directory, the runner's kept scratch directories included, in one
    that is removed after the test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        tempfile.tempdir = self.tmp
        self.source = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.source, "docs"))
        os.makedirs(os.path.join(self.source, "examples", "specs"))
        with open(os.path.join(self.source, "examples", "specs", "echo.yaml"), "w") as f:
            f.write("name: echo\n")

    def tearDown(self):
        tempfile.tempdir = None
        shutil.rmtree(self.tmp, ignore_errors=True)


def write_doc(directory, text):
    path = os.path.join(directory, "doc.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


class RunFileTest(ScratchTest):
    def run_doc(self, text):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.run_file(write_doc(self.source, text), self.source, self.source, False)
        return status, out.getvalue()

    def test_blocks_share_one_session_in_a_copy_of_the_examples(self):
        status, report = self.run_doc(
            "```console\n$ name=$(cat examples/specs/echo.yaml)\n```\n\ntext\n\n"
            "```console\n$ echo \"$name\" \\\n>   again\nname: echo again\n"
            "$ echo out; echo err >&2; exit_with() { return $1; }; exit_with 3\n"
            "out\nerr\n[3]\n```\n")
        self.assertEqual(status, 0, report)

    def test_a_failure_names_the_line_the_command_and_the_difference(self):
        status, report = self.run_doc(
            "# title\n\n```console\n$ echo same; echo actual\nsame\nexpected\n```\n")
        self.assertEqual(status, 1)
        self.assertIn("doc.md:4: FAILED", report)
        self.assertIn("$ echo same; echo actual", report)
        self.assertIn("  -expected\n  +actual", report)
        self.assertIn("exit status: 0 (expected 0)", report)

    def test_an_unexpected_exit_status_fails(self):
        status, report = self.run_doc("```console\n$ false\n```\n")
        self.assertEqual(status, 1)
        self.assertIn("exit status: 1 (expected 0)", report)

    def test_an_unfinished_command_is_reported_without_waiting(self):
        status, report = self.run_doc("```console\n$ echo 'unclosed\n```\n")
        self.assertEqual(status, 1)
        self.assertIn("exit status: none", report)


class CoverageTest(ScratchTest):
    def test_a_shell_block_needs_an_existing_test_named_before_it(self):
        with open(os.path.join(self.source, "README.md"), "w") as f:
            f.write("```sh\nmake\n```\n\n<!-- covered by: known, unknown -->\n```bash\nmake\n```\n"
                    "\n```cpp\nint x;\n```\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.doc_coverage(self.source, {"known"})
        self.assertEqual(status, 1)
        self.assertIn("README.md:1: a ```sh block that nothing runs", out.getvalue())
        self.assertIn("README.md:6: covered by 'unknown'", out.getvalue())
        self.assertIn("2 problem(s)", out.getvalue())

    def test_an_example_no_test_names_is_listed(self):
        with open(os.path.join(self.source, "README.md"), "w") as f:
            f.write("```console\n$ cat examples/specs/echo.yaml\n```\n")
        with open(os.path.join(self.source, "examples", "specs", "orphan.yaml"), "w") as f:
            f.write("name: orphan\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.examples_coverage(self.source)
        self.assertEqual(status, 1)
        self.assertIn("examples/specs/orphan.yaml: no test", out.getvalue())
        self.assertNotIn("echo.yaml", out.getvalue())


if __name__ == "__main__":
    unittest.main()
