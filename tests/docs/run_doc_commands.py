#!/usr/bin/env python3
"""Runs what the docs tell a user to type, and checks that the docs cover the examples.

  run_doc_commands.py run FILE.md --source-dir DIR --prefix DIR
      Runs the file's `console` blocks in one bash session and compares every command's output
      and exit status with the block (docs/contributing-docs.md has the format).
  run_doc_commands.py doc-coverage --source-dir DIR --ctest CTEST --build-dir DIR
                                   [--ci-step NAME]...
      Every `sh`/`bash`/`shell` block is preceded by `<!-- covered by: TEST -->` naming a ctest
      (or a CI step); console blocks need nothing, they are run.
  run_doc_commands.py list --source-dir DIR
      The doc files that have console blocks (one ctest each).
  run_doc_commands.py examples-coverage --source-dir DIR
      Every file under examples/ is reached by a test: named (or its directory named) by a docs
      console block, a file under tests/, or examples/CMakeLists.txt, or by a file so reached.

Python 3 standard library only.
"""

import argparse
import difflib
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

SHELL_LANGUAGES = {"sh", "bash", "shell"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
COVERED_BY = re.compile(r"^\s*<!--\s*covered by:\s*(?P<names>[^>]*?)\s*-->\s*$")
SAME_AS = re.compile(r"^\s*<!--\s*same as:\s*(?P<path>\S+)\s*-->\s*$")
EXIT_STATUS = re.compile(r"^\[(\d+)\]$")
COMMAND_TIMEOUT_SECONDS = 240


def doc_files(source_dir):
    """The markdown files whose commands are tested: README.md, docs/*.md, examples/**/*.md."""
    files = [os.path.join(source_dir, "README.md")]
    docs = os.path.join(source_dir, "docs")
    files += sorted(os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    for root, _, names in sorted(os.walk(os.path.join(source_dir, "examples"))):
        files += sorted(os.path.join(root, name) for name in names if name.endswith(".md"))
    return files


class Block:
    def __init__(self, info, first_line, lines, line_before):
        self.info = info              # the info string's first word, "" when none
        self.first_line = first_line  # 1-based line number of the first line inside the fence
        self.lines = lines            # the block's lines, the fence's indentation removed
        self.line_before = line_before  # the line before the opening fence ("" at the top)


def fenced_blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(text):
        opening = FENCE.match(text[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        end = i + 1
        while end < len(text) and not closing.match(text[end]):
            end += 1
        body = [line[indent:] if line[:indent].strip() == "" else line.lstrip()
                for line in text[i + 1:end]]
        blocks.append(Block(opening["info"], i + 2, body, text[i - 1] if i > 0 else ""))
        i = end + 1
    return blocks


class Command:
    def __init__(self, line, text, expected):
        self.line, self.text = line, text
        self.status = 0
        if expected and EXIT_STATUS.match(expected[-1]):
            self.status = int(EXIT_STATUS.match(expected[-1]).group(1))
            expected = expected[:-1]
        self.expected = expected


def console_commands(path):
    commands = []
    for block in fenced_blocks(path):
        if block.info != "console":
            continue
        current = None
        for offset, line in enumerate(block.lines):
            if line.startswith("$ ") or line == "$":
                current = [block.first_line + offset, [line[2:]], []]
                commands.append(current)
            elif current is None:
                raise SystemExit(f"{path}:{block.first_line + offset}: a console block must start "
                                 "with a `$ ` command line")
            elif line.startswith("> ") and not current[2]:
                current[1].append(line[2:])
            else:
                current[2].append(line)
    return [Command(line, "\n".join(text), [e.rstrip() for e in expected])
            for line, text, expected in commands]


def line_pattern(expected_line):
    return re.compile("".join(".*" if part == "..." else re.escape(part)
                              for part in re.split(r"(\.\.\.)", expected_line)) + r"\Z", re.S)


def output_matches(expected, actual):
    """Whether `actual` lines match `expected`, where a line `...` stands for any lines and
    `...` inside a line for any text."""
    patterns = [None if line == "..." else line_pattern(line) for line in expected]
    # reachable[j]: the first i expected lines can match the first j actual lines.
    reachable = [True] + [False] * len(actual)
    for pattern in patterns:
        following = [False] * (len(actual) + 1)
        for j in range(len(actual) + 1):
            if pattern is None:
                following[j] = reachable[j] or (j > 0 and following[j - 1])
            else:
                following[j] = j > 0 and reachable[j - 1] and bool(pattern.match(actual[j - 1]))
        reachable = following
    return reachable[len(actual)]


def aligned_expectation(expected, actual):
    """`expected` with each line that matches the actual line at its position replaced by that
    line, so that a diff shows only the lines that differ, not every `...`."""
    return [actual[i] if i < len(actual) and line != "..." and line_pattern(line).match(actual[i])
            else line for i, line in enumerate(expected)]


def isolated_environment(scratch, prefix):
    """The user's environment with sortie's state, config and home inside `scratch`, as
    tests/cli/cli_harness.cpp sets it, and the installed `sortie` first on PATH."""
    env = dict(os.environ)
    for name in ("SORTIE_PLUGIN_PATH", "SORTIE_PLUGIN_DIRS", "SORTIE_CONFIG", "TORCHXCONFIG",
                 "SORTIE_SESSION", "SORTIE_GPU_DEVICES", "SORTIE_ISOLATE_PLUGINS",
                 "SORTIE_PLUGIN_TIMEOUT",
                 "BASH_ENV", "ENV", "CDPATH"):
        env.pop(name, None)
    env.update({
        "SORTIE_STATE_DIR": os.path.join(scratch, "state"),
        "HOME": os.path.join(scratch, "home"),
        "XDG_CONFIG_HOME": os.path.join(scratch, "xdg-config"),
        "XDG_DATA_HOME": os.path.join(scratch, "xdg-data"),
        "XDG_CACHE_HOME": os.path.join(scratch, "xdg-cache"),
        "XDG_CONFIG_DIRS": os.path.join(scratch, "no-such-config-dir"),
        "XDG_DATA_DIRS": os.path.join(scratch, "no-such-data-dir"),
        "TMPDIR": os.path.join(scratch, "tmp"),
        # Then Debian's python3 (with python3-torch), as on the fresh Debian 12 machine the
        # README starts from, before any other interpreter this machine puts first.
        "PATH": os.pathsep.join([os.path.join(prefix, "bin"), "/usr/bin",
                                 env.get("PATH", "/usr/bin:/bin")]),
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
    })
    os.makedirs(env["HOME"])
    os.makedirs(env["TMPDIR"])
    return env


class BashSession:
    """One bash process running commands one after another; each command's stdout and stderr
    reach one pipe, so their lines keep the order they were written in."""

    def __init__(self, cwd, env):
        self.marker = "\x1esortie-doc-command-done-" + uuid.uuid4().hex
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.pending = b""

    def run(self, command):
        """Returns (output, exit status), or (output, None) when the command timed out or ended
        the session."""
        # Braces, not a subshell: assignments and `cd` carry over to the next command. stdin is
        # /dev/null so a command cannot read the commands that follow it.
        script = f"{{\n{command}\n}} </dev/null 2>&1\nprintf '\\n%s %d\\n' '{self.marker}' \"$?\"\n"
        self.process.stdin.write(script.encode())
        self.process.stdin.flush()
        ending = re.compile(rb"\n" + re.escape(self.marker.encode()) + rb" (\d+)\n")
        deadline = time.monotonic() + COMMAND_TIMEOUT_SECONDS
        while True:
            found = ending.search(self.pending)
            if found:
                output = self.pending[:found.start()]
                self.pending = self.pending[found.end():]
                return output.decode(errors="replace"), int(found.group(1))
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(remaining, 0))
            if not ready:
                return self.pending.decode(errors="replace") + (
                    f"\n(no end after {COMMAND_TIMEOUT_SECONDS} s)"), None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return self.pending.decode(errors="replace") + "\n(the shell exited)", None
            self.pending += chunk

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process.stdout.close()


def output_lines(output):
    """The output's lines without trailing spaces (editors strip them from the docs)."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def run_file(path, source_dir, prefix, keep):
    commands = console_commands(path)
    relative = os.path.relpath(path, source_dir)
    if not commands:
        print(f"{relative}: no console blocks")
        return 0
    scratch = tempfile.mkdtemp(prefix="sortie-doc-")
    workdir = os.path.join(scratch, "repo")
    os.makedirs(workdir)
    shutil.copytree(os.path.join(source_dir, "examples"), os.path.join(workdir, "examples"),
                    symlinks=True)
    session = BashSession(workdir, isolated_environment(scratch, prefix))
    failures = 0
    try:
        for command in commands:
            syntax = subprocess.run(["bash", "-n", "-c", command.text], capture_output=True,
                                    text=True)
            # An unfinished command would swallow the end marker; report it instead of waiting.
            output, status = (syntax.stderr, None) if syntax.returncode else session.run(
                command.text)
            actual = output_lines(output)
            if status == command.status and output_matches(command.expected, actual):
                continue
            failures += 1
            print(f"{relative}:{command.line}: FAILED")
            print("command:\n  $ " + command.text.replace("\n", "\n  > "))
            print(f"exit status: {status if status is not None else 'none'}"
                  f" (expected {command.status})")
            if not output_matches(command.expected, actual):
                print("output (- expected, + actual):")
                for line in difflib.unified_diff(aligned_expectation(command.expected, actual),
                                                 actual, "expected", "actual", lineterm="",
                                                 n=1000):
                    if not line.startswith(("---", "+++", "@@")):
                        print("  " + line)
            if status is None and not syntax.returncode:
                break
    finally:
        session.close()
        if keep or failures:
            print(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{relative}: {len(commands) - failures} of {len(commands)} commands as documented")
    return 1 if failures else 0


def known_tests(ctest, build_dir):
    listing = subprocess.run([ctest, "--test-dir", build_dir, "-N"], capture_output=True,
                             text=True, check=True).stdout
    return set(re.findall(r"^\s*Test\s+#\d+: (\S+)", listing, re.M))


def doc_coverage(source_dir, tests):
    problems = []
    for path in doc_files(source_dir):
        relative = os.path.relpath(path, source_dir)
        for block in fenced_blocks(path):
            if block.info not in SHELL_LANGUAGES:
                continue
            where = f"{relative}:{block.first_line - 1}"
            covered = COVERED_BY.match(block.line_before)
            if not covered:
                problems.append(f"{where}: a ```{block.info} block that nothing runs: make it a "
                                "```console block with its output, or put "
                                "<!-- covered by: TEST --> on the line before it")
                continue
            for name in re.split(r"[\s,]+", covered["names"]):
                if name not in tests:
                    problems.append(f"{where}: covered by '{name}', which is neither a ctest "
                                    "nor a CI step")
    for problem in problems:
        print(problem)
    print(f"doc coverage: {len(problems)} problem(s)")
    return 1 if problems else 0


def doc_snippets(source_dir):
    """A block after <!-- same as: PATH --> must be the file PATH, so the two cannot drift."""
    problems = []
    for path in doc_files(source_dir):
        relative = os.path.relpath(path, source_dir)
        for block in fenced_blocks(path):
            same_as = SAME_AS.match(block.line_before)
            if not same_as:
                continue
            where = f"{relative}:{block.first_line - 1}"
            try:
                with open(os.path.join(source_dir, same_as["path"]), encoding="utf-8") as f:
                    expected = f.read().rstrip("\n").split("\n")
            except OSError as error:
                problems.append(f"{where}: same as {same_as['path']}, which cannot be read: {error}")
                continue
            if block.lines != expected:
                diff = difflib.unified_diff(expected, block.lines, same_as["path"], where, lineterm="")
                problems.append(f"{where}: differs from {same_as['path']}:\n" + "\n".join(diff))
    for problem in problems:
        print(problem)
    print(f"doc snippets: {len(problems)} problem(s)")
    return 1 if problems else 0


def mentions(text, name):
    """Whether `name` (a path) occurs in `text` as a whole path: `specs` in `specs/`, not in
    `specs/echo.yaml` or `specs2`."""
    return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w.-]|/[\w.-])", text) is not None


def examples_coverage(source_dir):
    examples = os.path.join(source_dir, "examples")
    files = sorted(os.path.relpath(os.path.join(root, name), examples)
                   for root, _, names in os.walk(examples) for name in names)

    def readable(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (UnicodeDecodeError, OSError):
            return ""

    # What reaches examples from outside: the commands of the docs, every file of the tests but
    # these checks (whose own tests name example paths of scratch trees), and
    # examples/CMakeLists.txt (the examples' ctests). Those name files as examples/PATH.
    outside = ["\n".join(c.text for c in console_commands(path)) for path in doc_files(source_dir)]
    this_directory = os.path.join(source_dir, "tests", "docs")
    for root, _, names in os.walk(os.path.join(source_dir, "tests")):
        if root != this_directory:
            outside += [readable(os.path.join(root, name)) for name in names]
    outside_text = "\n".join(outside)

    def named_from_outside(relative):
        return any(mentions(outside_text, "examples/" + part) for part in leading_parts(relative))

    def leading_parts(relative):
        parts = relative.split("/")
        return ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]

    covered = {f for f in files if named_from_outside(f)} | {"CMakeLists.txt"}
    # A reached file reaches what it names, relative to examples/ or to its own directory.
    changed = True
    while changed:
        changed = False
        for reached in sorted(covered):
            text = readable(os.path.join(examples, reached))
            here = os.path.dirname(reached)
            for candidate in files:
                if candidate in covered:
                    continue
                names = leading_parts(candidate)
                if here and candidate.startswith(here + "/"):
                    names += leading_parts(candidate[len(here) + 1:])
                if any(mentions(text, name) for name in names):
                    covered.add(candidate)
                    changed = True
    missing = [f for f in files if f not in covered]
    for f in missing:
        print(f"examples/{f}: no test or documented command uses it")
    print(f"examples coverage: {len(files) - len(missing)} of {len(files)} files reached")
    return 1 if missing else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run")
    run.add_argument("file")
    run.add_argument("--source-dir", required=True)
    run.add_argument("--prefix", required=True, help="the installed sortie (PREFIX/bin/sortie)")
    run.add_argument("--keep", action="store_true", help="keep the scratch directory")
    coverage = sub.add_parser("doc-coverage")
    coverage.add_argument("--source-dir", required=True)
    coverage.add_argument("--ctest", required=True)
    coverage.add_argument("--build-dir", required=True)
    coverage.add_argument("--ci-step", action="append", default=[])
    listing = sub.add_parser("list", help="the doc files that have console blocks")
    listing.add_argument("--source-dir", required=True)
    snippets = sub.add_parser("doc-snippets")
    snippets.add_argument("--source-dir", required=True)
    examples = sub.add_parser("examples-coverage")
    examples.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    source_dir = os.path.abspath(args.source_dir)
    if args.action == "run":
        return run_file(os.path.abspath(args.file), source_dir, os.path.abspath(args.prefix),
                        args.keep)
    if args.action == "list":
        for path in doc_files(source_dir):
            if console_commands(path):
                print(path)
        return 0
    if args.action == "doc-coverage":
        return doc_coverage(source_dir, known_tests(args.ctest, args.build_dir) | set(args.ci_step))
    if args.action == "doc-snippets":
        return doc_snippets(source_dir)
    return examples_coverage(source_dir)


if __name__ == "__main__":
    sys.exit(main())
