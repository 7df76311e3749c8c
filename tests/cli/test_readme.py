"""The README as a newcomer reads it: every shell block defines the variables it uses (GitHub
Actions' own GITHUB_* aside), and every relative link of the README and docs/ names a file that
exists."""
import glob
import os
import re
import unittest

from gpubench_cli import SOURCE_DIR

SHELL_BLOCK = re.compile(r"```(?:sh|bash)\n(.*?)```", re.S)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class ReadmeTests(unittest.TestCase):
    def test_shell_blocks_define_their_variables(self):
        blocks = SHELL_BLOCK.findall(read(os.path.join(SOURCE_DIR, "README.md")))
        self.assertGreater(len(blocks), 3)
        for block in blocks:
            used = set(re.findall(r"\$\{?([A-Za-z_]\w*)", block))
            assigned = set(re.findall(r"(?m)(?:^|[;&|(]\s*|export\s+)([A-Za-z_]\w*)=", block))
            assigned |= set(re.findall(r"\bfor\s+([A-Za-z_]\w*)\s+in\b", block))
            undefined = {name for name in used - assigned if not name.startswith("GITHUB_")}
            self.assertFalse(undefined, f"used but never set: {sorted(undefined)} in\n{block}")

    def test_relative_links_name_files_that_exist(self):
        documents = [os.path.join(SOURCE_DIR, "README.md")] + glob.glob(os.path.join(SOURCE_DIR, "docs", "*.md"))
        for document in documents:
            for target in LINK.findall(read(document)):
                if re.match(r"[a-z]+:", target):
                    continue
                with self.subTest(document=os.path.basename(document), target=target):
                    self.assertTrue(os.path.exists(os.path.join(os.path.dirname(document), target)), target)


if __name__ == "__main__":
    unittest.main()
