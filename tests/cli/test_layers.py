"""The folders' dependencies point one way (docs/DESIGN.md): src/ includes no CUDA header and
no backend, and kernels/ includes nothing from gpu_backend/ or src/ and no CUDA library beyond
the runtime and CUB, so that gpu_backend/ builds on kernels/ and never the other way round."""
import os
import re
import unittest

from gpubench_cli import SOURCE_DIR, main

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
CUDA_HEADER = re.compile(r"^(cuda|cublas|cusparse|cub/|thrust/|curand|nvml)")


def includes_under(folder, extensions):
    """(file, included path) for every #include in the folder's files with these extensions."""
    found = []
    root = os.path.join(SOURCE_DIR, folder)
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(extensions):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                for included in INCLUDE.findall(handle.read()):
                    found.append((os.path.relpath(path, SOURCE_DIR), included))
    return found


class LayerTests(unittest.TestCase):
    def test_kernels_include_only_kernels_and_the_cuda_runtime(self):
        includes = includes_under("kernels", (".cu", ".cuh"))
        self.assertTrue(includes, "no includes found under kernels/")
        for path, included in includes:
            with self.subTest(file=path, include=included):
                self.assertFalse(included.startswith(("gpu_backend/", "src/", "cpu_backend/")), "kernels/ reaches up")
                self.assertNotRegex(included, r"^(cublas|cusparse)", "kernels/ depends on a CUDA library")
                if "/" in included and not included.startswith(("cub/", "cuda/")):
                    self.assertTrue(included.startswith("kernels/"), "kernels/ includes another folder")

    def test_src_includes_no_cuda_header_and_no_backend(self):
        for path, included in includes_under("src", (".cpp", ".hpp")):
            with self.subTest(file=path, include=included):
                self.assertNotRegex(included, CUDA_HEADER)
                self.assertFalse(included.startswith(("gpu_backend/", "kernels/", "cpu_backend/")))


if __name__ == "__main__":
    main()
