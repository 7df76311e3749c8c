"""gpubench --version names the commit the build's sources are at: read when the program is
built (cmake/write_git_sha.cmake), so a build after new commits names the new HEAD without
configuring again. Skipped where the source tree is not a git checkout (a tarball names
"unknown") or the build was given -DGPUBENCH_GIT_SHA."""
import os
import shutil
import subprocess
import sys

from gpubench_cli import SKIP, SOURCE_DIR, CliTestCase, gpubench, main


def git(*args):
    return subprocess.run(["git", *args], cwd=SOURCE_DIR, capture_output=True, text=True, timeout=60)


def source_head():
    """(HEAD's short SHA, None), or (None, why there is none to check)."""
    if os.environ.get("GPUBENCH_GIT_SHA_OVERRIDE"):
        return None, "the build names the commit given to CMake (-DGPUBENCH_GIT_SHA), not HEAD"
    if shutil.which("git") is None:
        return None, "no git on PATH"
    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(SOURCE_DIR):
        return None, f"the source tree {SOURCE_DIR} is not a git checkout"
    head = git("rev-parse", "--short=12", "HEAD")
    if head.returncode != 0:
        return None, "git rev-parse HEAD failed: " + head.stderr.strip()
    return head.stdout.strip(), None


class VersionTests(CliTestCase):
    def test_version_names_the_head_of_the_source_tree(self):
        head, why = source_head()
        self.assertIsNone(why)
        process = gpubench("--version")
        self.assertOk(process)
        self.assertIn(f"({head},", process.stdout, f"HEAD of {SOURCE_DIR} is {head}")

    def test_info_names_the_head_of_the_source_tree(self):
        head, _ = source_head()
        process = gpubench("info")
        self.assertOk(process)
        self.assertIn(head, process.stdout + process.stderr)


if __name__ == "__main__":
    _, WHY = source_head()
    if WHY:
        print(f"nothing to check: {WHY}", file=sys.stderr)
        sys.exit(SKIP)
    main()
