"""The folders' dependencies point one way (docs/DESIGN.md, src/README.md). src/ is one folder
per layer, top to bottom cli, config, report, analysis, store, measure, fleet, model, base: a
folder includes only its own layer and those below it. cpu_backend/ builds on measure/ and
below; gpu_backend/ on kernels/ and measure/ and below; kernels/ on nothing but kernels/, the
CUDA runtime and CUB. Nothing in src/ includes a backend folder or a CUDA header.

Every project include is spelled from an include root ("model/types.hpp" from src/,
"kernels/gemm.cuh" from the repository root) and names a file that exists, so a stale path
cannot hide behind a build that happens to find another file. No include cycle runs through
files, through modules (a module is the files of one folder that share a name: x.hpp with
x.cpp or x.cu) or through folders.

check_tree() holds the rules; LayerRuleTests runs it on synthetic trees, so that what it
detects is tested too."""
import os
import re
import tempfile
import unittest

from gpubench_cli import SOURCE_DIR, main

# src/'s layers, top to bottom.
SRC_LAYERS = ("cli", "config", "report", "analysis", "store", "measure", "fleet", "model", "base")
BACKEND_FOLDERS = ("cpu_backend", "gpu_backend", "kernels")
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".cpp.in")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)
CUDA_HEADER = re.compile(r"^(cuda|cublas|cusparse|cub/|thrust/|curand|nvml|nvtx3/nvToolsExtCuda)")
CUDA_LIBRARY_HEADER = re.compile(r"^(cublas|cusparse|curand|nvml)")


def folder_of(path):
    """The layer folder of a path relative to the root: "src/model", "gpu_backend"; None outside them."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2 and parts[1] in SRC_LAYERS:
        return "src/" + parts[1]
    if parts[0] in BACKEND_FOLDERS and len(parts) > 1:
        return parts[0]
    return None


def allowed_folders(folder):
    """The folders that `folder` may include, its own among them."""
    if folder.startswith("src/"):
        layer = SRC_LAYERS.index(folder[len("src/"):])
        return {"src/" + below for below in SRC_LAYERS[layer:]}
    below_measure = {"src/" + below for below in SRC_LAYERS[SRC_LAYERS.index("measure"):]}
    return {
        "cpu_backend": {"cpu_backend"} | below_measure,
        "gpu_backend": {"gpu_backend", "kernels"} | below_measure,
        "kernels": {"kernels"},
    }[folder]


def source_files(root):
    """Every source file of the layer folders, as paths relative to root."""
    found = []
    for top in ["src"] + list(BACKEND_FOLDERS):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                path = os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/")
                if name.endswith(EXTENSIONS) and folder_of(path):
                    found.append(path)
    return sorted(found)


def resolve(root, included):
    """The file an include names, relative to root: from src/ first, then from the root."""
    for base in ("src", ""):
        candidate = os.path.normpath(os.path.join(base, included)).replace(os.sep, "/")
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def strongly_connected(graph):
    """The strongly connected components of graph (node -> set of nodes) with a cycle in them:
    more than one node, or one that reaches itself. Iterative Tarjan."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def check_tree(root):
    """Every breach of the rules in the tree at root, one line each; empty when there is none."""
    problems = []
    file_graph, module_graph, folder_graph = {}, {}, {}
    for path in source_files(root):
        folder = folder_of(path)
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            text = handle.read()
        file_graph.setdefault(path, set())
        for match in INCLUDE.finditer(text):
            quoted, included = match.group(1) == '"', match.group(2)
            where = "%s:%d: #include %s" % (path, text.count("\n", 0, match.start()) + 1,
                                            ('"%s"' if quoted else "<%s>") % included)
            if path.startswith("src/") and CUDA_HEADER.match(included):
                problems.append(where + ": src/ includes no CUDA header")
            if folder == "kernels" and CUDA_LIBRARY_HEADER.match(included):
                problems.append(where + ": kernels/ depends on no CUDA library beyond the runtime")
            target = resolve(root, included)
            if not quoted:
                if target and folder_of(target):
                    problems.append(where + ": a project file is included with quotes")
                continue
            if target is None:
                problems.append(where + ": no such file from src/ or the repository root")
                continue
            target_folder = folder_of(target)
            if target_folder is None:
                problems.append(where + ": names a file outside the layer folders")
                continue
            if target_folder not in allowed_folders(folder):
                problems.append("%s: %s/ may not include %s/ (allowed: %s)" % (
                    where, folder, target_folder, ", ".join(sorted(f + "/" for f in allowed_folders(folder)))))
            file_graph[path].add(target)
            module_graph.setdefault(os.path.splitext(path)[0], set())
            if os.path.splitext(target)[0] != os.path.splitext(path)[0]:
                module_graph[os.path.splitext(path)[0]].add(os.path.splitext(target)[0])
            if target_folder != folder:
                folder_graph.setdefault(folder, set()).add(target_folder)
    for kind, graph in (("files", file_graph), ("modules", module_graph), ("folders", folder_graph)):
        for cycle in strongly_connected(graph):
            problems.append("include cycle between %s: %s" % (kind, ", ".join(cycle)))
    return problems


class LayerTests(unittest.TestCase):
    def test_the_tree_keeps_its_layers(self):
        self.assertGreater(len(source_files(SOURCE_DIR)), 100, "the layer folders were not found")
        problems = check_tree(SOURCE_DIR)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_src_holds_folders_and_a_handful_of_files(self):
        files = [name for name in os.listdir(os.path.join(SOURCE_DIR, "src"))
                 if os.path.isfile(os.path.join(SOURCE_DIR, "src", name))]
        folders = {name for name in os.listdir(os.path.join(SOURCE_DIR, "src"))
                   if os.path.isdir(os.path.join(SOURCE_DIR, "src", name))}
        self.assertLessEqual(len(files), 3, files)
        self.assertEqual(folders, set(SRC_LAYERS), "src/'s folders are its layers")
        for folder in list(SRC_LAYERS) + ["../" + name for name in BACKEND_FOLDERS]:
            with self.subTest(folder=folder):
                self.assertTrue(os.path.isfile(os.path.join(SOURCE_DIR, "src", folder, "README.md")),
                                "each layer folder says what it owns and may include")


class LayerRuleTests(unittest.TestCase):
    """check_tree on synthetic trees: each rule is seen to catch what it is for."""

    CLEAN = {
        "src/base/text.hpp": "#pragma once\n#include <string>\n",
        "src/model/types.hpp": '#pragma once\n#include "base/text.hpp"\n',
        "src/model/types.cpp": '#include "model/types.hpp"\n',
        "src/analysis/compare.hpp": '#include "model/types.hpp"\n',
        "src/report/report.hpp": '#include "analysis/compare.hpp"\n#include "model/types.hpp"\n',
        "src/cli/main.cpp": '#include "report/report.hpp"\n',
        "src/measure/backend.hpp": '#include "model/types.hpp"\n',
        "kernels/gemm.cuh": "#include <cuda_runtime.h>\n",
        "kernels/gemm.cu": '#include "kernels/gemm.cuh"\n#include <cub/cub.cuh>\n',
        "gpu_backend/cuda_backend.cu": '#include <cublas_v2.h>\n#include "kernels/gemm.cuh"\n#include "measure/backend.hpp"\n',
        "cpu_backend/eigen_backend.cpp": '#include "measure/backend.hpp"\n',
    }

    def problems_of(self, changes):
        files = dict(self.CLEAN)
        files.update(changes)
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                    handle.write(text)
            return check_tree(root)

    def assert_finds(self, changes, *fragments):
        """Some problem of the changed tree names every fragment (the clean tree has none)."""
        problems = self.problems_of(changes)
        self.assertTrue(any(all(fragment in problem for fragment in fragments) for problem in problems),
                        "%s not found in %s" % (fragments, problems))

    def test_a_clean_tree_has_no_problem(self):
        self.assertEqual(self.problems_of({}), [])

    def test_an_upward_include_in_src(self):
        self.assert_finds({"src/model/types.cpp": '#include "model/types.hpp"\n#include "analysis/compare.hpp"\n'},
                                "src/model/types.cpp:2", "src/model/ may not include src/analysis/")
        self.assert_finds({"src/report/report.hpp": '#include "cli/x.hpp"\n', "src/cli/x.hpp": ""},
                                "src/report/ may not include src/cli/")

    def test_every_layer_may_include_those_below_it(self):
        chain = {"src/%s/f%d.hpp" % (layer, i): '#include "%s/f%d.hpp"\n' % (below, i + 1)
                 for i, (layer, below) in enumerate(zip(SRC_LAYERS, SRC_LAYERS[1:]))}
        chain["src/base/f%d.hpp" % (len(SRC_LAYERS) - 1)] = ""
        self.assertEqual(self.problems_of(chain), [])
        for i, (layer, below) in enumerate(zip(SRC_LAYERS, SRC_LAYERS[1:])):
            with self.subTest(layer=below):
                self.assert_finds({"src/%s/up.hpp" % below: '#include "%s/top.hpp"\n' % layer,
                                         "src/%s/top.hpp" % layer: ""},
                                        "src/%s/ may not include src/%s/" % (below, layer))

    def test_backends_and_kernels(self):
        self.assert_finds({"src/measure/backend.hpp": '#include "cpu_backend/x.hpp"\n', "cpu_backend/x.hpp": ""},
                                "src/measure/ may not include cpu_backend/")
        self.assert_finds({"cpu_backend/eigen_backend.cpp": '#include "analysis/compare.hpp"\n'},
                                "cpu_backend/ may not include src/analysis/")
        self.assert_finds({"cpu_backend/eigen_backend.cpp": '#include "kernels/gemm.cuh"\n'},
                                "cpu_backend/ may not include kernels/")
        self.assert_finds({"kernels/gemm.cu": '#include "gpu_backend/x.cuh"\n', "gpu_backend/x.cuh": ""},
                                "kernels/ may not include gpu_backend/")
        self.assert_finds({"kernels/gemm.cu": '#include "model/types.hpp"\n'}, "kernels/ may not include src/model/")
        self.assert_finds({"kernels/gemm.cuh": "#include <cublas_v2.h>\n"}, "no CUDA library")
        self.assert_finds({"src/base/text.hpp": "#include <cuda_runtime.h>\n"}, "src/ includes no CUDA header")

    def test_missing_and_misspelled_includes(self):
        self.assert_finds({"src/model/types.cpp": '#include "model/typo.hpp"\n'},
                                "src/model/types.cpp:1", "no such file")
        # Found beside the including file, but not from an include root: a stale spelling.
        self.assert_finds({"src/model/types.cpp": '#include "types.hpp"\n'}, "no such file")
        self.assert_finds({"src/model/types.cpp": '#include "../base/text.hpp"\n'}, "no such file")
        self.assert_finds({"src/model/types.cpp": '#include "tests/helper.hpp"\n', "tests/helper.hpp": ""},
                          "outside the layer folders")
        self.assert_finds({"src/model/types.cpp": "#include <model/types.hpp>\n"}, "with quotes")

    def test_cycles_between_files_modules_and_folders(self):
        file_cycle = {"src/model/a.hpp": '#include "model/b.hpp"\n', "src/model/b.hpp": '#include "model/a.hpp"\n'}
        problems = self.problems_of(file_cycle)
        self.assertIn("include cycle between files: src/model/a.hpp, src/model/b.hpp", problems)
        self.assertIn("include cycle between modules: src/model/a, src/model/b", problems)
        self.assertEqual(len(problems), 2, problems)
        self.assert_finds({"src/model/a.hpp": "", "src/model/a.cpp": '#include "model/b.hpp"\n',
                                 "src/model/b.hpp": "", "src/model/b.cpp": '#include "model/a.hpp"\n'},
                                "include cycle between modules: src/model/a, src/model/b")
        self.assert_finds({"src/model/a.hpp": '#include "model/a.hpp"\n'}, "include cycle between files: src/model/a.hpp")
        # Folders of one level that include each other: only the folder graph sees a cycle.
        problems = self.problems_of({"cpu_backend/eigen_backend.cpp": '#include "cpu_backend/y.hpp"\n',
                                     "cpu_backend/y.hpp": "", "gpu_backend/x.cuh": '#include "cpu_backend/y.hpp"\n',
                                     "cpu_backend/z.cpp": '#include "gpu_backend/x.cuh"\n'})
        self.assertIn("include cycle between folders: cpu_backend, gpu_backend", problems)

    def test_line_numbers_and_spacing(self):
        self.assert_finds({"src/base/text.hpp": '#pragma once\n\n  #  include   "cli/main.hpp"\n',
                                 "src/cli/main.hpp": ""},
                                "src/base/text.hpp:3", "src/base/ may not include src/cli/")


if __name__ == "__main__":
    main()
